#include "training/checkpoint/reshard.h"

#include <fmt/format.h>

#include <ATen/CPUGeneratorImpl.h>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/logical_checkpoint.h"

namespace mt {

std::map<std::string, torch::Tensor> load_resharded_state(const std::filesystem::path& step_dir,
                                                          const ReshardTarget& target) {
  LogicalCheckpoint source(step_dir);
  std::map<std::string, torch::Tensor> out;
  std::map<std::string, torch::Tensor> flat;  // this rank's model tensors, flat views
  int64_t moment_elements = 0;
  for (const auto& t : target.model_tensors) {
    auto tensor = torch::zeros(t.tensor.sizes(), torch::TensorOptions().dtype(torch::kFloat));
    flat[t.name] = tensor.view({-1});
    out[t.name] = tensor;
    moment_elements += t.tensor.numel();
  }
  auto exp_avg = torch::zeros({moment_elements}), exp_avg_sq = torch::zeros({moment_elements});
  for (const auto& parameter : target.layout->parameters) {
    const LogicalTensor& from = source.parameter(parameter.name);
    if (from.shape != parameter.shape)
      throw CheckpointError(fmt::format("the checkpoint's {} has another shape than this model's", parameter.name));
    for (const auto& piece : parameter.pieces) {
      if (piece.rank != target.rank) continue;
      auto into = flat.find(piece.tensor);
      if (into == flat.end()) throw std::logic_error("reshard: a piece of " + piece.tensor + ", which this rank lacks");
      source.read_range(from, StatePart::weights, piece.at, piece.numel,
                        into->second.narrow(0, piece.offset, piece.numel));
      source.read_range(from, StatePart::exp_avg, piece.at, piece.numel,
                        exp_avg.narrow(0, piece.moment_offset, piece.numel));
      source.read_range(from, StatePart::exp_avg_sq, piece.at, piece.numel,
                        exp_avg_sq.narrow(0, piece.moment_offset, piece.numel));
    }
  }
  out["optimizer/exp_avg"] = exp_avg;
  out["optimizer/exp_avg_sq"] = exp_avg_sq;
  out["optimizer/steps"] = torch::full({static_cast<int64_t>(target.optimizer_tensors)}, source.optimizer_steps(),
                                       torch::TensorOptions().dtype(torch::kLong));
  // Global state, as rank 0 saved it.
  for (const char* name : kGlobalStateTensors) {
    auto value = source.saved(0, name);
    if (!value) throw CheckpointError(fmt::format("'{}': rank 0's shard lacks {}", step_dir.string(), name));
    out[name] = *value;
  }
  // A rank that existed keeps its stream; a new one keeps the run's own seeding.
  std::optional<torch::Tensor> rng;
  if (target.rank < source.metadata().identity.world_size) rng = source.saved(target.rank, "rng/cpu");
  out["rng/cpu"] = rng ? *rng : at::detail::getDefaultCPUGenerator().get_state();
  return out;
}

}  // namespace mt
