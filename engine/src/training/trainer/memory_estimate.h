// What a training run needs in memory at least, per rank, before anything is allocated: enough to
// refuse a model that cannot fit (exit 2) instead of letting the OOM killer pick a victim. A lower
// bound, so it never refuses a run that would fit: the LibTorch runtime, allocator slack and most
// activations come on top.
#pragma once

#include "training/trainer/config.h"

namespace mt {

struct TrainingMemory {
  double parameter_bytes = 0;    // the whole fp32 model
  double model_state_bytes = 0;  // the whole model at build time, plus gradients and AdamW moments
  double activation_bytes = 0;   // the logits and their gradient, one float per hidden value per layer
  double total() const { return model_state_bytes + activation_bytes; }
};

// Every rank builds the whole fp32 model before a strategy shards it; gradients and the two AdamW
// moments are at least this rank's 1/world_size share of the parameters. Activations: the logits
// (batch × seq × vocab) and their gradient, and one d_model vector per token per layer.
TrainingMemory training_memory_lower_bound(const TrainConfig& config, int world_size);

}  // namespace mt
