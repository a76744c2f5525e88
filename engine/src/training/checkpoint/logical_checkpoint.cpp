#include "training/checkpoint/logical_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/layout.h"

namespace mt {

LogicalCheckpoint::LogicalCheckpoint(std::filesystem::path step_dir) : dir_(std::move(step_dir)) {
  if (!std::filesystem::is_directory(dir_))
    throw CheckpointError("'" + dir_.string() + "' is not a checkpoint step directory");
  if (!checkpoint_layout::is_ready(dir_))
    throw CheckpointError("'" + dir_.string() +
                          "' is not a published checkpoint step (no READY): it may be incomplete");
  metadata_ = read_metadata(dir_);
  if (!metadata_.layout || metadata_.settings.is_null())
    throw CheckpointError("'" + dir_.string() +
                          "' does not record where its parameters live (written by an older mtengine): resume from "
                          "it with this version and save again");
}

const LogicalTensor* LogicalCheckpoint::find_parameter(const std::string& name) const {
  for (const auto& t : layout().parameters)
    if (t.name == name) return &t;
  return nullptr;
}

const LogicalTensor& LogicalCheckpoint::parameter(const std::string& name) const {
  if (const auto* t = find_parameter(name)) return *t;
  throw CheckpointError("'" + dir_.string() + "' has no parameter '" + name + "': it is of another model");
}

ShardReader& LogicalCheckpoint::shard(int rank) {
  auto it = shards_.find(rank);
  if (it == shards_.end()) it = shards_.emplace(rank, ShardReader(dir_ / checkpoint_layout::shard_name(rank))).first;
  return it->second;
}

void LogicalCheckpoint::read_range(const LogicalTensor& parameter, StatePart part, int64_t at, int64_t count,
                                   torch::Tensor into) {
  for (const auto& piece : parameter.pieces) {
    const int64_t lo = std::max(at, piece.at), hi = std::min(at + count, piece.at + piece.numel);
    if (lo >= hi) continue;
    const int64_t within = lo - piece.at;
    auto values = part == StatePart::weights
                      ? shard(piece.rank).read_elements(piece.tensor, piece.offset + within, hi - lo)
                      : shard(piece.rank)
                            .read_elements(part == StatePart::exp_avg ? "optimizer/exp_avg" : "optimizer/exp_avg_sq",
                                           piece.moment_offset + within, hi - lo);
    if (values.scalar_type() != torch::kFloat)
      throw CheckpointError(fmt::format("'{}': {} of rank {} is not fp32", dir_.string(), piece.tensor, piece.rank));
    into.narrow(0, lo - at, hi - lo).copy_(values);
  }
}

torch::Tensor LogicalCheckpoint::assemble(const LogicalTensor& parameter, StatePart part) {
  auto out = torch::empty({parameter.numel()}, torch::TensorOptions().dtype(torch::kFloat));
  read_range(parameter, part, 0, parameter.numel(), out);
  return out.view(parameter.shape);
}

std::optional<torch::Tensor> LogicalCheckpoint::saved(int rank, const std::string& name) {
  auto& reader = shard(rank);
  for (const auto& e : reader.entries())
    if (e.name == name) {
      int64_t n = 1;
      for (auto d : e.shape) n *= d;
      return reader.read_elements(name, 0, n).view(e.shape);
    }
  return std::nullopt;
}

int64_t LogicalCheckpoint::optimizer_steps() {
  const auto steps = saved(0, "optimizer/steps");
  if (!steps) throw CheckpointError("'" + dir_.string() + "': rank 0's shard lacks optimizer/steps");
  return steps->numel() == 0 ? 0 : steps->max().item<int64_t>();
}

}  // namespace mt
