#include "core/kernels/attention_kernel.h"

#include <cmath>

#include "core/kernels/isa.h"
#include "core/kernels/simd.h"

namespace mt {
namespace {

template <int Lanes>
struct CausalSoftmax {
  using S = simd::Simd<Lanes>;
  using F = typename S::F;
  static constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  static MT_SIMD_INLINE void zero_tail(float* row, int64_t from, int64_t seq) {
    for (int64_t j = from; j < seq; ++j) row[j] = 0.0f;
  }

  // A row holds seq floats: its last, partial vector of visible keys is read and written whole where
  // it fits (S::load_last, S::store_last), whatever the hidden floats held; they are then 0.

  // Returns the row's log-sum-exp, max + log Σ exp(x - max), from which the probabilities can be
  // recomputed (recompute_row). Hidden lanes read as -inf, whose exp is the 0 they must hold.
  static MT_SIMD_INLINE float forward_row(float* row, int64_t visible, int64_t seq) {
    const int64_t whole = visible / Lanes * Lanes, rest = visible - whole;
    const float max = S::max_over(row, visible, seq);
    F sum{};
    for (int64_t j = 0; j < whole; j += Lanes) {
      const F e = S::exp(S::load(row + j) - max);
      S::store(row + j, e);
      sum += e;
    }
    int64_t written = whole;
    if (rest > 0) {
      const F e = S::exp(S::load_last(row + whole, rest, seq - whole, kNegInf) - max);
      written += S::store_last(row + whole, e, rest, seq - whole);
      sum += e;
    }
    const float total = S::sum_of(sum), inverse = 1.0f / total;
    int64_t j = 0;
    for (; j + Lanes <= written; j += Lanes) S::store(row + j, S::load(row + j) * inverse);
    for (; j < written; ++j) row[j] *= inverse;
    zero_tail(row, written, seq);
    return max + std::log(total);
  }

  static MT_SIMD_INLINE void recompute_row(float* row, float lse, int64_t visible, int64_t seq) {
    const int64_t whole = visible / Lanes * Lanes, rest = visible - whole;
    for (int64_t j = 0; j < whole; j += Lanes) S::store(row + j, S::exp(S::load(row + j) - lse));
    int64_t written = whole;
    if (rest > 0)
      written += S::store_last(row + whole, S::exp(S::load_last(row + whole, rest, seq - whole, kNegInf) - lse), rest,
                               seq - whole);
    zero_tail(row, written, seq);
  }

  // g = p ⊙ (g - Σ p g) over the visible keys. Hidden lanes read as 0 in both, so add nothing to
  // the sum, and are kept 0 in the result.
  static MT_SIMD_INLINE void backward_row(const float* p, float* g, int64_t visible, int64_t seq) {
    const int64_t whole = visible / Lanes * Lanes, rest = visible - whole, room = seq - whole;
    F dot{}, p_last{}, g_last{};
    for (int64_t j = 0; j < whole; j += Lanes) dot += S::load(p + j) * S::load(g + j);
    if (rest > 0) {
      p_last = S::load_last(p + whole, rest, room, 0.0f);
      g_last = S::load_last(g + whole, rest, room, 0.0f);
      dot += p_last * g_last;
    }
    const float total = S::sum_of(dot);
    for (int64_t j = 0; j < whole; j += Lanes) S::store(g + j, S::load(p + j) * (S::load(g + j) - total));
    int64_t written = whole;
    if (rest > 0) written += S::store_last(g + whole, S::keep_first(p_last * (g_last - total), rest, 0.0f), rest, room);
    zero_tail(g, written, seq);
  }

  static MT_SIMD_INLINE void forward_rows(float* scores, int64_t seq, int64_t first, int64_t last, float* lse) {
    for (int64_t r = first; r < last; ++r) {
      const float row_lse = forward_row(scores + (r - first) * seq, r % seq + 1, seq);
      if (lse != nullptr) lse[r - first] = row_lse;
    }
  }

  static MT_SIMD_INLINE void recompute_rows(float* scores, const float* lse, int64_t seq, int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) recompute_row(scores + (r - first) * seq, lse[r - first], r % seq + 1, seq);
  }

  static MT_SIMD_INLINE void backward_rows(const float* probs, float* grad, int64_t seq, int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r)
      backward_row(probs + (r - first) * seq, grad + (r - first) * seq, r % seq + 1, seq);
  }
};

MT_TARGET_X86_64_V3 void causal_softmax_rows_v3(float* scores, int64_t seq, int64_t first, int64_t last, float* lse) {
  CausalSoftmax<8>::forward_rows(scores, seq, first, last, lse);
}

MT_TARGET_X86_64_V3 void causal_softmax_recompute_rows_v3(float* scores, const float* lse, int64_t seq, int64_t first,
                                                          int64_t last) {
  CausalSoftmax<8>::recompute_rows(scores, lse, seq, first, last);
}

MT_TARGET_X86_64_V3 void causal_softmax_backward_rows_v3(const float* probs, float* grad, int64_t seq, int64_t first,
                                                         int64_t last) {
  CausalSoftmax<8>::backward_rows(probs, grad, seq, first, last);
}

MT_TARGET_X86_64_V4 void causal_softmax_rows_v4(float* scores, int64_t seq, int64_t first, int64_t last, float* lse) {
  CausalSoftmax<16>::forward_rows(scores, seq, first, last, lse);
}

MT_TARGET_X86_64_V4 void causal_softmax_recompute_rows_v4(float* scores, const float* lse, int64_t seq, int64_t first,
                                                          int64_t last) {
  CausalSoftmax<16>::recompute_rows(scores, lse, seq, first, last);
}

MT_TARGET_X86_64_V4 void causal_softmax_backward_rows_v4(const float* probs, float* grad, int64_t seq, int64_t first,
                                                         int64_t last) {
  CausalSoftmax<16>::backward_rows(probs, grad, seq, first, last);
}

}  // namespace

void causal_softmax_rows(float* scores, int64_t seq, int64_t first, int64_t last, float* lse) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return causal_softmax_rows_v4(scores, seq, first, last, lse);
    case KernelIsa::x86_64_v3: return causal_softmax_rows_v3(scores, seq, first, last, lse);
    case KernelIsa::baseline: return CausalSoftmax<4>::forward_rows(scores, seq, first, last, lse);
  }
}

void causal_softmax_recompute_rows(float* scores, const float* lse, int64_t seq, int64_t first, int64_t last) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return causal_softmax_recompute_rows_v4(scores, lse, seq, first, last);
    case KernelIsa::x86_64_v3: return causal_softmax_recompute_rows_v3(scores, lse, seq, first, last);
    case KernelIsa::baseline: return CausalSoftmax<4>::recompute_rows(scores, lse, seq, first, last);
  }
}

void causal_softmax_backward_rows(const float* probs, float* grad, int64_t seq, int64_t first, int64_t last) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return causal_softmax_backward_rows_v4(probs, grad, seq, first, last);
    case KernelIsa::x86_64_v3: return causal_softmax_backward_rows_v3(probs, grad, seq, first, last);
    case KernelIsa::baseline: return CausalSoftmax<4>::backward_rows(probs, grad, seq, first, last);
  }
}

}  // namespace mt
