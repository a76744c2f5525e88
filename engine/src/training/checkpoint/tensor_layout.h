// Where each parameter of the model lives in a checkpoint's shard files, recorded in
// metadata.json, so that a reader outside the training job (`mtengine export`) can put the model
// back together without knowing how a strategy flattens and shards it. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mt {

// How a strategy keeps one parameter: inside the checkpoint tensor `tensor` (e.g. "model/unit_3"),
// from element `offset` of that tensor's unsharded, flat form. shard_numel > 0: the flat form is
// cut into world-size contiguous shards of that many elements, rank r saving the r-th;
// shard_numel == 0: the tensor is saved whole, by rank 0 alone.
struct ParameterPlacement {
  std::string tensor;
  int64_t offset = 0;
  int64_t shard_numel = 0;
};

// A run of a parameter's elements saved by one rank.
struct TensorPiece {
  int rank = 0;
  std::string tensor;         // the shard file's tensor holding them
  int64_t offset = 0;         // first element within that tensor
  int64_t numel = 0;          // elements in the run
  int64_t at = 0;             // first element within the parameter (row-major)
  int64_t moment_offset = 0;  // first element within that rank's optimizer/exp_avg (and exp_avg_sq)
};

struct LogicalTensor {
  std::string name;  // the model's own parameter name, e.g. "blocks.0.attention.qkv.weight"
  std::vector<int64_t> shape;
  std::vector<TensorPiece> pieces;  // in order, covering [0, numel) exactly
  int64_t numel() const;
};

struct CheckpointLayout {
  std::vector<LogicalTensor> parameters;  // in the model's order
};

struct ParameterShape {
  std::string name;
  std::vector<int64_t> shape;
};

// The layout of a run's checkpoints. `parameters` and `placements` in model order; `saved` the
// model tensors a saving rank writes (name, elements) in the order the optimizer's flat moments
// follow them — the same on every rank for sharded strategies, rank 0's for replicated ones.
CheckpointLayout make_checkpoint_layout(const std::vector<ParameterShape>& parameters,
                                        const std::vector<ParameterPlacement>& placements,
                                        const std::vector<std::pair<std::string, int64_t>>& saved, int world_size);

nlohmann::json to_json(const CheckpointLayout& layout);
// Throws CheckpointError naming what is wrong: a field missing, pieces that do not cover a
// parameter exactly, a rank outside [0, world_size).
CheckpointLayout layout_from_json(const nlohmann::json& json, int world_size);

}  // namespace mt
