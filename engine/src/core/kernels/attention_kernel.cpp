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

  // Returns the row's log-sum-exp, max + log Σ exp(x - max), from which the probabilities can be
  // recomputed (recompute_row).
  static MT_SIMD_INLINE float forward_row(float* row, int64_t visible, int64_t seq) {
    const float max = S::max_over(row, visible);
    F sum{};
    int64_t j = 0;
    for (; j + Lanes <= visible; j += Lanes) {
      const F e = S::exp(S::load(row + j) - max);
      S::store(row + j, e);
      sum += e;
    }
    if (j < visible) {
      const F e = S::exp(S::load_partial(row + j, visible - j, kNegInf) - max);
      S::store_partial(row + j, e, visible - j);
      sum += e;
    }
    const float total = S::sum_of(sum), inverse = 1.0f / total;
    for (j = 0; j + Lanes <= visible; j += Lanes) S::store(row + j, S::load(row + j) * inverse);
    for (; j < visible; ++j) row[j] *= inverse;
    zero_tail(row, visible, seq);
    return max + std::log(total);
  }

  static MT_SIMD_INLINE void recompute_row(float* row, float lse, int64_t visible, int64_t seq) {
    int64_t j = 0;
    for (; j + Lanes <= visible; j += Lanes) S::store(row + j, S::exp(S::load(row + j) - lse));
    if (j < visible)
      S::store_partial(row + j, S::exp(S::load_partial(row + j, visible - j, kNegInf) - lse), visible - j);
    zero_tail(row, visible, seq);
  }

  static MT_SIMD_INLINE void backward_row(const float* p, float* g, int64_t visible, int64_t seq) {
    F dot{};
    int64_t j = 0;
    for (; j + Lanes <= visible; j += Lanes) dot += S::load(p + j) * S::load(g + j);
    float total = S::sum_of(dot);
    for (; j < visible; ++j) total += p[j] * g[j];
    for (j = 0; j + Lanes <= visible; j += Lanes) S::store(g + j, S::load(p + j) * (S::load(g + j) - total));
    for (; j < visible; ++j) g[j] = p[j] * (g[j] - total);
    zero_tail(g, visible, seq);
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
