// The engine's GPT under nanoGPT's names, so its weights load into PyTorch code written for
// nanoGPT (and Hugging Face's GPT-2 layout): parameter names, the configuration's keys, and the
// tied LM head. Both models keep nn.Linear's [out, in] weight layout, so only names change.
// Torch-free.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "training/model/model_config.h"

namespace mt {

// "blocks.3.attention.qkv.weight" -> "transformer.h.3.attn.c_attn.weight"; nothing for a name
// the engine's model does not have.
std::optional<std::string> nanogpt_name(const std::string& engine_name);
// The inverse: "transformer.h.3.attn.c_attn.weight" -> "blocks.3.attention.qkv.weight".
std::optional<std::string> engine_name(const std::string& nanogpt_name);

// The LM head is the token embedding (weight tying); files carry it once, under the embedding's
// name, as Hugging Face's GPT-2 files do.
inline constexpr const char* kTiedHead = "lm_head.weight";
inline constexpr const char* kTiedTo = "transformer.wte.weight";

// `export --with-optimizer` files carry AdamW's moments beside the weights, each under its
// parameter's name behind one of these prefixes: "optimizer.exp_avg.transformer.wte.weight".
inline constexpr const char* kExpAvgPrefix = "optimizer.exp_avg.";
inline constexpr const char* kExpAvgSqPrefix = "optimizer.exp_avg_sq.";
// The parameter a moment's name belongs to ("transformer.wte.weight"), or nothing for another name.
std::optional<std::string> moment_parameter(const std::string& file_name);

// The model's configuration as file metadata: {"config": JSON with nanoGPT's keys (vocab_size,
// block_size, n_layer, n_head, n_embd, dropout, bias) and layer_norm_eps}.
std::map<std::string, std::string> nanogpt_config_metadata(const ModelConfig& config);

}  // namespace mt
