#include "training/interop/nanogpt_names.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <utility>

namespace mt {
namespace {

using Rename = std::pair<const char*, const char*>;  // engine prefix, nanoGPT prefix

constexpr std::array<Rename, 3> kOutside = {{{"token_embedding.", "transformer.wte."},
                                             {"position_embedding.", "transformer.wpe."},
                                             {"final_norm.", "transformer.ln_f."}}};
constexpr std::array<Rename, 6> kInBlock = {{{"norm_attention.", "ln_1."},
                                             {"attention.qkv.", "attn.c_attn."},
                                             {"attention.out.", "attn.c_proj."},
                                             {"norm_mlp.", "ln_2."},
                                             {"fc_in.", "mlp.c_fc."},
                                             {"fc_out.", "mlp.c_proj."}}};
constexpr std::array<const char*, 2> kLeaves = {"weight", "bias"};

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool is_leaf(const std::string& s) {
  for (const char* leaf : kLeaves)
    if (s == leaf) return true;
  return false;
}

// Renames `name` by the first prefix pair (from -> to) that matches with a weight/bias leaf after it.
template <std::size_t N>
std::optional<std::string> rename(const std::string& name, const std::array<Rename, N>& table, bool forward) {
  for (const auto& [engine, nanogpt] : table) {
    const std::string from = forward ? engine : nanogpt, to = forward ? nanogpt : engine;
    if (starts_with(name, from) && is_leaf(name.substr(from.size()))) return to + name.substr(from.size());
  }
  return std::nullopt;
}

// "blocks.12.rest" with block prefix "blocks." -> (12 as written, "rest").
std::optional<std::pair<std::string, std::string>> split_block(const std::string& name, const std::string& prefix) {
  if (!starts_with(name, prefix)) return std::nullopt;
  std::size_t i = prefix.size();
  const std::size_t digits = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == digits || i >= name.size() || name[i] != '.') return std::nullopt;
  if (name[digits] == '0' && i - digits > 1) return std::nullopt;  // "blocks.01" is not a block
  return std::make_pair(name.substr(digits, i - digits), name.substr(i + 1));
}

std::optional<std::string> translate(const std::string& name, bool forward) {
  if (auto outside = rename(name, kOutside, forward)) return outside;
  const std::string from = forward ? "blocks." : "transformer.h.", to = forward ? "transformer.h." : "blocks.";
  const auto block = split_block(name, from);
  if (!block) return std::nullopt;
  const auto inner = rename(block->second, kInBlock, forward);
  if (!inner) return std::nullopt;
  return to + block->first + "." + *inner;
}

}  // namespace

std::optional<std::string> nanogpt_name(const std::string& engine_name) { return translate(engine_name, true); }
std::optional<std::string> engine_name(const std::string& nanogpt_name) { return translate(nanogpt_name, false); }

std::optional<std::string> moment_parameter(const std::string& file_name) {
  for (const std::string prefix : {kExpAvgPrefix, kExpAvgSqPrefix})
    if (starts_with(file_name, prefix)) return file_name.substr(prefix.size());
  return std::nullopt;
}

std::map<std::string, std::string> nanogpt_config_metadata(const ModelConfig& c) {
  const nlohmann::json config = {
      {"vocab_size", c.vocab_size}, {"block_size", c.seq_length}, {"n_layer", c.n_layers}, {"n_head", c.n_heads},
      {"n_embd", c.d_model},        {"dropout", c.dropout},       {"bias", true},          {"layer_norm_eps", 1e-5}};
  return {{"format", "pt"}, {"config", config.dump()}, {"tied", std::string(kTiedHead) + "=" + kTiedTo}};
}

}  // namespace mt
