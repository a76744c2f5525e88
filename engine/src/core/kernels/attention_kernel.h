// Causal softmax over rows of attention scores, forward and backward, vectorised by hand. Scores
// are [heads · S, S] row-major; row r is query position r % S, which may see keys 0..r % S only.
// Entries above the diagonal may be unset: whatever they hold (a row's last vector is read whole
// where it fits in the row) never reaches a result, and they are written as 0. The pointers given
// are those of row `first` (the rows of one block of queries may live in a buffer of their own).
#pragma once

#include <cstdint>

namespace mt {

// In place: scores -> probabilities, for rows [first, last); with lse, each row's log-sum-exp
// (lse[r - first]) too.
void causal_softmax_rows(float* scores, int64_t seq, int64_t first, int64_t last, float* lse = nullptr);

// In place: scores -> probabilities again, exp(score - lse) from the rows' saved log-sum-exp.
void causal_softmax_recompute_rows(float* scores, const float* lse, int64_t seq, int64_t first, int64_t last);

// In place: grad holds dL/dprobs on entry and dL/dscores on exit:
// dS[i, j] = P[i, j] · (dP[i, j] - Σ_k P[i, k] · dP[i, k]), for rows [first, last).
void causal_softmax_backward_rows(const float* probs, float* grad, int64_t seq, int64_t first, int64_t last);

}  // namespace mt
