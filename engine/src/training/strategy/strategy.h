// A parallel training strategy wraps a single-device model from the outside: it makes replicas
// consistent at the start, synchronises (and possibly shards) gradients during the step, decides
// which tensors the optimizer steps, and reports what it sent and what it holds.
//
// The trainer drives one optimizer step as:
//   for each micro-batch: before_micro_batch; forward + backward; after_backward
//   before_optimizer_step; (grad norm, clipping over optimizer_parameters()); optimizer.step();
//   after_optimizer_step; zero_grad (unless the optimizer's pass cleared the gradients, where
//   optimizer_may_clear_gradients allows it)
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "training/checkpoint/named_tensor.h"
#include "training/checkpoint/tensor_layout.h"
#include "training/model/gpt.h"
#include "training/strategy/strategy_table.h"

namespace mt {

struct StrategyReport {
  std::vector<int64_t> bucket_bytes;  // one entry per gradient bucket or unit, in reduction order
  // Bytes held by this rank (peaks over the run where they vary within a step).
  int64_t parameter_bytes = 0;            // persistent parameters (full or sharded)
  int64_t gradient_bytes = 0;             // held across micro-batches (max over the run)
  int64_t peak_gradient_bytes = 0;        // peak held at once, transient buffers included
  int64_t peak_full_parameter_bytes = 0;  // peak bytes of unsharded parameters resident at once
  // Peak bytes of full parameters materialised transiently by gathering shards, beside the
  // persistent ones: 0 for strategies that keep the parameters whole.
  int64_t gathered_parameter_bytes = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // Called once before training: e.g. broadcast rank 0's parameters, flatten, shard.
  virtual void prepare(GptImpl& model) = 0;
  // The tensors the optimizer updates: the model's parameters, or this rank's shards.
  virtual std::vector<torch::Tensor> optimizer_parameters() = 0;
  // Whether optimizer_parameters() are disjoint shards (so a global norm sums over ranks).
  virtual bool sharded_optimizer() const = 0;

  virtual void before_micro_batch(int micro_index, int micro_count) {}
  // Called after each micro-batch's backward; gradients reduced by now if this micro-batch syncs.
  virtual void after_backward(int micro_index, int micro_count) = 0;
  virtual void before_optimizer_step() {}
  virtual void after_optimizer_step() {}
  virtual void zero_grad() = 0;
  // Whether the .grad of optimizer_parameters() are every gradient zero_grad clears, and nothing
  // reads them between the optimizer step and zero_grad: the optimizer may then write zeros over
  // each gradient as it reads it, and zero_grad is skipped.
  virtual bool optimizer_may_clear_gradients() const { return false; }
  // What the loss is multiplied by before backward: 1 / ranks for strategies that average
  // gradients over data-parallel ranks, so that the gradients come out of backward already
  // divided (exactly so for a power-of-two world; every operation of backward is linear in the
  // loss's gradient) and the reduction is a plain sum, sparing a pass over every gradient bucket
  // (on 2 ranks x 1 thread, 9 ms of the 23.2M model's step); 1 for a strategy that reduces nothing.
  // Read after before_micro_batch: it may depend on how this micro-batch is reduced.
  virtual double loss_scale() const { return 1.0; }

  // The full parameters in model order (collective; for tests and checks, not the hot path).
  virtual std::vector<torch::Tensor> full_parameters() = 0;
  // The full gradients in model order, averaged over ranks, as the optimizer is about to see them
  // (collective; valid after before_optimizer_step(); for checks against a reference).
  virtual std::vector<torch::Tensor> full_gradients() = 0;

  // Gradient synchronisation rounds performed so far (a round may issue several collectives).
  virtual long sync_rounds() const = 0;
  virtual StrategyReport report() const = 0;

  // Checkpointing. The model tensors this rank saves: its shard of each unit (sharded
  // strategies: no rank gathers the full model), or its 1/N slice of the replicated parameters.
  // A restore writes into these same tensors, then calls after_model_state_loaded() to make every
  // rank consistent again (collective).
  virtual std::vector<NamedTensor> model_state() = 0;
  virtual void after_model_state_loaded() = 0;
  // Where each of the model's parameters (`model_parameters`, model order) lives within what
  // model_state() saves: recorded in the checkpoint so readers need not know the strategy.
  virtual std::vector<ParameterPlacement> parameter_placements(const std::vector<torch::Tensor>& model_parameters) = 0;
};

// What backward runs on for one of `micro_count` micro-batches: the loss divided by their count
// and scaled by the strategy's loss_scale(), as the trainer and the strategy oracle both drive it.
inline torch::Tensor backward_loss(const Strategy& strategy, const torch::Tensor& loss, int micro_count) {
  const double scale = strategy.loss_scale();
  return (scale == 1.0 ? loss : loss * scale) / micro_count;
}

}  // namespace mt
