// A parallel training strategy wraps a single-device model from the outside: it makes replicas
// consistent at the start, synchronises gradients during the step and reports what it sent.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strategy/strategy_table.h"

namespace mt {

struct StrategyReport {
  std::vector<int64_t> bucket_bytes;  // one entry per gradient bucket, in all-reduce order
  int64_t parameter_bytes = 0;        // held by this rank
  int64_t gradient_bytes = 0;         // held by this rank
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // Called once before training: e.g. broadcast rank 0's parameters.
  virtual void prepare(torch::nn::Module& model) = 0;
  // Called after each micro-batch's backward; the strategy decides from its sync mode whether
  // gradients are synchronised now.
  virtual void after_backward(int micro_index, int micro_count) = 0;
  virtual void before_optimizer_step() {}
  virtual void after_optimizer_step() {}

  // Gradient synchronisation rounds performed so far (a round may issue several collectives).
  virtual long sync_rounds() const = 0;
  virtual StrategyReport report() const = 0;
};

}  // namespace mt
