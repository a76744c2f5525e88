// Deterministic synthetic token batches: rank r's micro-batch m depends only on (seed, m, r), so a
// resumed run sees exactly the batches a continuous run would.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace mt {

struct TokenBatch {
  torch::Tensor inputs;   // [B, S] int64
  torch::Tensor targets;  // [B, S] int64, inputs shifted by one position
};

// m is the global micro-batch counter: step * grad_accum_steps + micro index.
uint64_t synthetic_batch_seed(uint64_t seed, int64_t micro_batch, int rank);

TokenBatch synthetic_batch(uint64_t seed, int64_t micro_batch, int rank, int64_t batch_size, int64_t seq_length,
                           int64_t vocab_size);

}  // namespace mt
