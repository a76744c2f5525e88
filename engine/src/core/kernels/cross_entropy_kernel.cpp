#include "core/kernels/cross_entropy_kernel.h"

#include <cmath>

#include "core/kernels/isa.h"
#include "core/kernels/simd.h"

namespace mt {
namespace {

template <int Lanes>
struct CrossEntropy {
  using S = simd::Simd<Lanes>;
  using F = typename S::F;
  static constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  // sum_j exp(row[j] - shift); a NaN anywhere in the row makes it NaN.
  static MT_SIMD_INLINE float row_sum_exp(const float* row, int64_t cols, float shift) {
    F s{};
    int64_t j = 0;
    for (; j + Lanes <= cols; j += Lanes) s += S::exp(S::load(row + j) - shift);
    if (j < cols) s += S::exp(S::load_partial(row + j, cols - j, kNegInf) - shift);
    return S::sum_of(s);
  }

  static MT_SIMD_INLINE void log_sum_exp_rows(const float* logits, int64_t cols, int64_t first, int64_t last,
                                              float* lse) {
    for (int64_t r = first; r < last; ++r) {
      const float* row = logits + r * cols;
      const float max = S::max_over(row, cols);
      // A row of -inf (or one holding +inf) has no finite shift: let the NaN or inf show.
      const float shift = std::isfinite(max) ? max : 0.0f;
      lse[r] = shift + std::log(row_sum_exp(row, cols, shift));
    }
  }

  static MT_SIMD_INLINE void softmax_minus_one_hot_rows(const float* logits, const float* lse, const int64_t* targets,
                                                        int64_t cols, float scale, int64_t first, int64_t last,
                                                        float* grad) {
    for (int64_t r = first; r < last; ++r) {
      const float* row = logits + r * cols;
      float* out = grad + r * cols;
      const float shift = lse[r];
      int64_t j = 0;
      for (; j + Lanes <= cols; j += Lanes) S::store(out + j, S::exp(S::load(row + j) - shift) * scale);
      if (j < cols)
        S::store_partial(out + j, S::exp(S::load_partial(row + j, cols - j, 0.0f) - shift) * scale, cols - j);
      out[targets[r]] -= scale;
    }
  }
};

MT_TARGET_X86_64_V3 void log_sum_exp_rows_v3(const float* logits, int64_t cols, int64_t first, int64_t last,
                                             float* lse) {
  CrossEntropy<8>::log_sum_exp_rows(logits, cols, first, last, lse);
}

MT_TARGET_X86_64_V3 void softmax_minus_one_hot_rows_v3(const float* logits, const float* lse, const int64_t* targets,
                                                       int64_t cols, float scale, int64_t first, int64_t last,
                                                       float* grad) {
  CrossEntropy<8>::softmax_minus_one_hot_rows(logits, lse, targets, cols, scale, first, last, grad);
}

MT_TARGET_X86_64_V4 void log_sum_exp_rows_v4(const float* logits, int64_t cols, int64_t first, int64_t last,
                                             float* lse) {
  CrossEntropy<16>::log_sum_exp_rows(logits, cols, first, last, lse);
}

MT_TARGET_X86_64_V4 void softmax_minus_one_hot_rows_v4(const float* logits, const float* lse, const int64_t* targets,
                                                       int64_t cols, float scale, int64_t first, int64_t last,
                                                       float* grad) {
  CrossEntropy<16>::softmax_minus_one_hot_rows(logits, lse, targets, cols, scale, first, last, grad);
}

}  // namespace

void log_sum_exp_rows(const float* logits, int64_t cols, int64_t first, int64_t last, float* lse) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return log_sum_exp_rows_v4(logits, cols, first, last, lse);
    case KernelIsa::x86_64_v3: return log_sum_exp_rows_v3(logits, cols, first, last, lse);
    case KernelIsa::baseline: return CrossEntropy<4>::log_sum_exp_rows(logits, cols, first, last, lse);
  }
}

void softmax_minus_one_hot_rows(const float* logits, const float* lse, const int64_t* targets, int64_t cols,
                                float scale, int64_t first, int64_t last, float* grad) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4:
      return softmax_minus_one_hot_rows_v4(logits, lse, targets, cols, scale, first, last, grad);
    case KernelIsa::x86_64_v3:
      return softmax_minus_one_hot_rows_v3(logits, lse, targets, cols, scale, first, last, grad);
    case KernelIsa::baseline:
      return CrossEntropy<4>::softmax_minus_one_hot_rows(logits, lse, targets, cols, scale, first, last, grad);
  }
}

}  // namespace mt
