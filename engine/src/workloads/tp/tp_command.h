// `mtengine tp`: tensor and sequence parallelism checked against the unsplit computation. Each
// rank builds the same seeded inputs, weights and upstream gradient, computes the single-device
// reference with autograd, then its part of the parallel form:
//   column   ColumnParallelLinear: the output dimension split; input gradients all-reduced
//   row      RowParallelLinear: the input dimension split; partial outputs all-reduced
//   mlp      column then row (GELU between, no gather in between), as in Megatron-LM
//   sp_mlp   the same with sequence parallelism: activations split along the sequence, all-gather
//            before and reduce-scatter after the tensor-parallel region
// Forward output, input gradient, and weight and bias gradients are compared with the
// reference's matching slices: max |error| per tensor (max over ranks), pass when <= --atol.
#pragma once

#include <cstdint>
#include <string>

#include "core/cli/option_table.h"

namespace mt {

struct TpConfig {
  int64_t batch = 2, seq_length = 64, d_model = 128;
  uint64_t seed = 11;
  double atol = 1e-5;
  int threads = 0;
  JobOptions job;  // --backend, --collective-timeout, --output
};

OptionTable tp_option_table(TpConfig& config);
int run_tp_command(const TpConfig& config);

}  // namespace mt
