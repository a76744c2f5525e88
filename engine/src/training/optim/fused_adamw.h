// AdamW with torch::optim::AdamW's defaults and math (decoupled weight decay, bias correction,
// no amsgrad), but one pass over memory per step instead of about eight, and no temporaries.
// Moments live in one flat buffer; the update runs over fixed-size chunks of all tensors with
// at::parallel_for, so small tensors neither pay a parallel region each nor leave threads idle.
// On a GPU the same state feeds ATen's fused AdamW kernel.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "training/checkpoint/named_tensor.h"
#include "core/comm/communicator.h"

namespace mt {

struct FusedAdamWOptions {
  // torch::optim::AdamWOptions defaults.
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

class FusedAdamW {
 public:
  // Every parameter must be a contiguous fp32 tensor; its .grad (when defined) as well.
  FusedAdamW(std::vector<torch::Tensor> parameters, FusedAdamWOptions options);

  void set_lr(double lr) { options_.lr = lr; }
  double lr() const { return options_.lr; }

  // Steps every parameter that has a gradient (as torch does, others keep their step count).
  // grad_scale multiplies gradients on the fly: clipping without a separate pass. With
  // clear_gradients the pass also writes zeros over every gradient it read (the CPU pass only);
  // returns whether it did, so that the caller skips its own clearing pass.
  bool step(double grad_scale = 1.0, bool clear_gradients = false);

  // exp_avg + exp_avg_sq bytes of parameters stepped at least once (what torch would hold).
  int64_t state_bytes() const;

  // Checkpointing: the moments and per-parameter step counts, and their restoration (throws
  // CheckpointError when a checkpoint's state does not fit these parameters).
  std::vector<NamedTensor> state() const;
  void load_state(const std::map<std::string, torch::Tensor>& tensors);
  // Replicated optimizers (DDP) save 1/N each: this rank's slice of the moments (the flat moments
  // cut into world-size equal slices, the last padded with zeros) and the step counts.
  std::vector<NamedTensor> state_slice(int rank, int world_size) const;
  // Every rank's slices gathered back into the whole state (collective).
  void load_state_slices(const std::map<std::string, torch::Tensor>& tensors, Communicator& comm);

 private:
  struct Chunk {
    std::size_t tensor;
    int64_t begin, end;
  };
  std::vector<torch::Tensor> parameters_;
  std::vector<int64_t> offsets_;  // of each parameter in the moment buffers
  std::vector<int64_t> steps_;
  std::vector<Chunk> chunks_;
  torch::Tensor exp_avg_, exp_avg_sq_;
  std::vector<torch::Tensor> device_steps_;  // per parameter, on a GPU: what ATen's kernel reads
  FusedAdamWOptions options_;

  void step_on_device(double grad_scale);
};

}  // namespace mt
