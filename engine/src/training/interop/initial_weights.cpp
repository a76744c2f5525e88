#include "training/interop/initial_weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <vector>

#include "core/comm/first_rank_problem.h"
#include "core/job/input_error.h"
#include "training/checkpoint/sha256.h"
#include "training/interop/nanogpt_names.h"
#include "training/interop/safetensors.h"

namespace mt {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// nanoGPT's causal-mask buffers (saved in its state_dict when it lacks flash attention): not weights.
bool is_mask_buffer(const std::string& name) {
  return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias");
}

// A NaN or an infinity in a starting weight soon makes the loss non-finite, and training would stop
// as a failure that every retry meets again: the file is at fault, so it is refused as bad input.
std::string non_finite_problem(const torch::Tensor& values) {
  const auto not_finite = torch::logical_not(torch::isfinite(values)).flatten();
  const int64_t count = not_finite.sum().item<int64_t>();
  if (count == 0) return "";
  int64_t flat = not_finite.to(torch::kByte).argmax().item<int64_t>();  // the first one
  const float first = values.flatten()[flat].item<float>();
  std::vector<int64_t> index(values.dim());  // its row-major position
  for (int64_t d = values.dim() - 1; d >= 0; --d) {
    index[d] = flat % values.size(d);
    flat /= values.size(d);
  }
  return fmt::format("{} value(s) that are not finite, the first {} at [{}]", count, first, fmt::join(index, ", "));
}

}  // namespace

InitialWeights load_initial_weights(GptImpl& model, const std::filesystem::path& path) {
  const std::string file = "--init-from '" + path.string() + "'";
  const auto index = [&] {
    try {
      return read_safetensors_index(path);
    } catch (const InputError& e) {  // the reader names the file; the flag says which one it is
      throw InputError(std::string("--init-from: ") + e.what());
    }
  }();
  std::set<std::string> expected;
  for (const auto& item : model.named_parameters()) expected.insert(*nanogpt_name(item.key()));
  std::size_t ignored_moments = 0;
  for (const auto& entry : index.tensors) {
    if (expected.count(entry.name) || entry.name == kTiedHead || is_mask_buffer(entry.name)) continue;
    if (const auto parameter = moment_parameter(entry.name); parameter && expected.count(*parameter)) {
      ++ignored_moments;  // a starting point, not a resume: the weights alone
      continue;
    }
    throw InputError(
        fmt::format("{}: tensor '{}' is not a parameter of this model (names follow nanoGPT: {}, "
                    "transformer.h.N.attn.c_attn.weight, ...)",
                    file, entry.name, kTiedTo));
  }
  torch::NoGradGuard no_grad;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // applied only once all are checked
  for (const auto& item : model.named_parameters()) {
    const std::string name = *nanogpt_name(item.key());
    const auto* entry = index.find(name);
    if (!entry) throw InputError(fmt::format("{}: lacks '{}' (this model's {})", file, name, item.key()));
    const auto& target = item.value();
    if (entry->shape != std::vector<int64_t>(target.sizes().begin(), target.sizes().end()))
      throw InputError(fmt::format("{}: '{}' has shape [{}], this configuration needs [{}]", file, name,
                                   fmt::join(entry->shape, ", "), fmt::join(target.sizes(), ", ")));
    if (entry->dtype != target.scalar_type())
      throw InputError(fmt::format("{}: '{}' is {}, this model keeps {} weights", file, name,
                                   safetensors_dtype_name(entry->dtype), safetensors_dtype_name(target.scalar_type())));
    auto values = read_safetensors_tensor(path, index, *entry);
    if (const auto problem = non_finite_problem(values); !problem.empty())
      throw InputError(fmt::format("{}: '{}' holds {}; a model cannot start from them", file, name, problem));
    copies.emplace_back(target, std::move(values));
  }
  if (const auto* head = index.find(kTiedHead)) {
    // Tied: a file may repeat the embedding under the head's name, but not hold another matrix.
    const auto embedding = read_safetensors_tensor(path, index, *index.find(kTiedTo));
    const auto values = read_safetensors_tensor(path, index, *head);
    if (values.sizes() != embedding.sizes() || values.scalar_type() != embedding.scalar_type() ||
        !torch::equal(values, embedding))
      throw InputError(fmt::format("{}: '{}' differs from '{}'; this model ties its LM head to the token embedding",
                                   file, kTiedHead, kTiedTo));
  }
  for (auto& [target, values] : copies) target.copy_(values);
  return {path.string(), sha256_file(path), ignored_moments};
}

InitialWeights load_initial_weights_on_every_rank(GptImpl& model, const std::filesystem::path& path,
                                                  ControlChannel& control) {
  InitialWeights loaded;
  std::string mine;
  try {
    loaded = load_initial_weights(model, path);
  } catch (const InputError& e) {
    mine = e.what();
  }
  if (const auto failed = first_rank_problem(control, mine)) {
    const auto hosts = control.hostnames();  // every rank is here: the decision was joint
    if (control.rank() == 0 && failed->rank != 0)
      throw InputError(fmt::format("rank {} on host '{}': {}", failed->rank,
                                   hosts[static_cast<std::size_t>(failed->rank)], failed->words));
    throw InputError(!mine.empty() ? mine : fmt::format("rank {} cannot start from --init-from", failed->rank));
  }
  // Every rank read a usable file; where copies differ, the run would quietly start from rank 0's.
  const auto digests = control.gather_text_to_root(loaded.sha256);  // on rank 0
  int differing = 0;                                                // the first rank whose copy differs
  for (std::size_t rank = 1; rank < digests.size() && differing == 0; ++rank) {
    if (digests[rank] != digests[0]) differing = static_cast<int>(rank);
  }
  const auto first_differing = static_cast<std::size_t>(control.max(differing));
  if (first_differing > 0) {
    const auto hosts = control.hostnames();
    const std::string which =
        digests.empty()
            ? ""
            : fmt::format(": rank {} on host '{}' read sha256 {}, rank 0 on host '{}' read {}", first_differing,
                          hosts[first_differing], digests[first_differing], hosts[0], digests[0]);
    throw InputError(
        fmt::format("--init-from '{}' is not the same file on every rank{}; every rank must start from "
                    "the same weights: give each host the same file",
                    path.string(), which));
  }
  return loaded;
}

}  // namespace mt
