// Softmax cross-entropy over rows of raw float logits: pure arithmetic, no torch, vectorised by
// hand so the exponentials cost a fraction of a scalar expf. Callers split rows across threads.
#pragma once

#include <cstdint>

namespace mt {

// lse[r] = log(sum_j exp(logits[r, j])) for rows [first, last), computed stably (max-shifted).
void log_sum_exp_rows(const float* logits, int64_t cols, int64_t first, int64_t last, float* lse);

// grad[r, j] = scale * (exp(logits[r, j] - lse[r]) - [j == targets[r]]) for rows [first, last):
// the gradient of scale * cross-entropy, written in one pass without a log-softmax tensor.
void softmax_minus_one_hot_rows(const float* logits, const float* lse, const int64_t* targets, int64_t cols,
                                float scale, int64_t first, int64_t last, float* grad);

}  // namespace mt
