// What one training rank puts into a checkpoint and takes back from it: the model (as its
// strategy shards it), the optimizer (1/N per rank for replicated strategies, per shard otherwise), the
// schedule's position, the train state (global step, micro step, tokens seen), the data cursor,
// and this rank's random generators (the CPU's, and the GPU's on GPU runs).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "training/checkpoint/checkpointer.h"
#include "training/checkpoint/named_tensor.h"
#include "core/comm/communicator.h"
#include "training/strategy/strategy.h"
#include "training/trainer/config.h"
#include "training/faults/faults.h"
#include "training/optim/fused_adamw.h"
#include "training/optim/lr_schedule.h"

namespace mt {

// The run's flags as the checkpoint machinery takes them.
FaultPlan fault_plan(const TrainConfig& config);
CheckpointSettings checkpoint_settings(const TrainConfig& config);
// What a checkpoint must agree on to be resumed by this run; the fingerprint covers every setting
// that changes the training math (model shape, batch, accumulation, optimizer, schedule, seed,
// numerics), not those that only change speed (threads, buckets) or bookkeeping (output).
// `initial_weights_sha256`: the digest of the --init-from file, "" when the model starts from
// the seed.
CheckpointIdentity checkpoint_identity(const TrainConfig& config, int world_size, const LrSchedule& schedule,
                                       const std::string& initial_weights_sha256 = "");
// The settings the fingerprint is taken over, as recorded in each checkpoint's metadata.
nlohmann::json checkpoint_settings_json(const TrainConfig& config, const LrSchedule& schedule,
                                        const std::string& initial_weights_sha256 = "");
// The settings of a checkpoint (as checkpoint_settings_json recorded them) applied to `config`: the
// model, batch, optimizer and schedule a run must have to resume from it with the same fingerprint.
// Throws CheckpointError when the checkpoint lacks them (written by an older mtengine).
void apply_checkpoint_settings(const CheckpointMetadata& metadata, TrainConfig& config);

// Where each parameter lives in this run's checkpoints (rank 0 calls it: it saves the metadata).
CheckpointLayout checkpoint_layout_of(GptImpl& model, Strategy& strategy, int world_size);

struct TrainPosition {
  int64_t global_step = 0;  // optimizer steps completed: the next step to run
  int64_t tokens_seen = 0;
};

std::vector<NamedTensor> rank_checkpoint(Strategy& strategy, const FusedAdamW& optimizer, int rank, int world_size,
                                         const TrainPosition& position, double next_learning_rate,
                                         int64_t micro_batches_per_step, const torch::Device& device);

// Why this rank's loaded tensors cannot be applied ("" when they can): a model tensor missing or
// of another shape or dtype than the model's (a dtype edit would otherwise reinterpret the bytes),
// or a train state at another step than the checkpoint's metadata. Local and collective-free, so
// every rank can decide together before the first collective of the restore.
std::string restore_problem(const std::map<std::string, torch::Tensor>& tensors, Strategy& strategy,
                            int64_t metadata_step);

// This rank's tensors of a resume point: as saved, or resharded when the checkpoint was laid out
// by another strategy or world size (collective; throws CheckpointError on every rank alike).
std::map<std::string, torch::Tensor> load_resume_point(Checkpointer& checkpointer, const ResumePoint& point,
                                                       GptImpl& model, Strategy& strategy,
                                                       std::size_t optimizer_tensors, int rank, int world_size);

// Applies a rank's loaded tensors; collective (replicated state travels from rank 0). Throws
// CheckpointError naming what is missing or does not fit.
TrainPosition restore_rank(const std::map<std::string, torch::Tensor>& tensors, Strategy& strategy,
                           FusedAdamW& optimizer, Communicator& comm, const torch::Device& device);

}  // namespace mt
