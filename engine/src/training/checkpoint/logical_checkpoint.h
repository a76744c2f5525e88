// A published checkpoint read by what it holds rather than by how one strategy laid it out: each
// parameter, and its AdamW moments, assembled from the slices the layout in metadata.json names;
// the global state (schedule, train state, data cursor, step counts) as rank 0 saved it; each rank's
// generator. Shards are opened when first read and only the needed elements are read. What
// `export`, a resharded resume and `verify` of two layouts share.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "training/checkpoint/metadata.h"
#include "training/checkpoint/shard_file.h"

namespace mt {

enum class StatePart { weights, exp_avg, exp_avg_sq };

// The state every rank saves alike (rank 0's copy speaks for all): the schedule, the train state
// and the data cursor.
inline constexpr const char* kGlobalStateTensors[] = {"scheduler/step",          "scheduler/learning_rate",
                                                      "train_state/global_step", "train_state/micro_step",
                                                      "train_state/tokens_seen", "data/next_micro_batch"};

class LogicalCheckpoint {
 public:
  // Throws CheckpointError when the directory is not a published step or lacks a layout (written
  // by an older mtengine). File digests are not checked here: see check_files() in metadata.h.
  explicit LogicalCheckpoint(std::filesystem::path step_dir);

  const std::filesystem::path& dir() const { return dir_; }
  const CheckpointMetadata& metadata() const { return metadata_; }
  const CheckpointLayout& layout() const { return *metadata_.layout; }
  // The parameter of that name; throws CheckpointError when the checkpoint has none.
  const LogicalTensor& parameter(const std::string& name) const;
  const LogicalTensor* find_parameter(const std::string& name) const;  // nullptr when it has none

  // The whole parameter (or its moments), in its shape.
  torch::Tensor assemble(const LogicalTensor& parameter, StatePart part);
  // Elements [at, at + count) of a parameter's part, written into `into` (flat, `count` long).
  void read_range(const LogicalTensor& parameter, StatePart part, int64_t at, int64_t count, torch::Tensor into);
  // A tensor of rank r's shard in its saved shape, or nothing when that shard lacks it.
  std::optional<torch::Tensor> saved(int rank, const std::string& name);
  // AdamW's step count (what bias correction uses), as rank 0 saved it.
  int64_t optimizer_steps();

 private:
  ShardReader& shard(int rank);
  std::filesystem::path dir_;
  CheckpointMetadata metadata_;
  std::map<int, ShardReader> shards_;
};

}  // namespace mt
