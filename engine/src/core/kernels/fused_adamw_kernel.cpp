#include "core/kernels/fused_adamw_kernel.h"

#include <cmath>
#include <type_traits>

#include "core/kernels/isa.h"

namespace mt {
namespace {

// The gradient is written (with zeros) only by the clearing copy; the other reads it as const.
template <bool ClearGrad>
using Grad = std::conditional_t<ClearGrad, float*, const float*>;

// The loop is written once and compiled for each instruction set by the callers below; the
// compiler vectorises it (the arrays do not alias, and -fno-math-errno frees the square root).
template <bool ClearGrad>
inline __attribute__((always_inline)) void update_range(float* __restrict param, Grad<ClearGrad> __restrict grad,
                                                        float* __restrict exp_avg, float* __restrict exp_avg_sq,
                                                        int64_t n, const AdamWScalars& s) {
  const AdamWScalars c = s;  // local copy: no aliasing with the arrays
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad[i] * c.grad_scale;
    const float p = param[i] * c.decay;
    const float m = exp_avg[i] * c.beta1 + c.one_minus_beta1 * g;
    const float v = exp_avg_sq[i] * c.beta2 + c.one_minus_beta2 * g * g;
    const float denom = std::sqrt(v) / c.sqrt_bias_correction2 + c.eps;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    param[i] = p + c.neg_step_size * (m / denom);
    if constexpr (ClearGrad) grad[i] = 0.0f;
  }
}

template <bool ClearGrad>
MT_TARGET_X86_64_V3 void update_v3(float* param, Grad<ClearGrad> grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                                   const AdamWScalars& s) {
  update_range<ClearGrad>(param, grad, exp_avg, exp_avg_sq, n, s);
}

template <bool ClearGrad>
void update(float* param, Grad<ClearGrad> grad, float* exp_avg, float* exp_avg_sq, int64_t n, const AdamWScalars& s) {
  switch (kernel_isa()) {
    // The pass is memory-bound, and its 512-bit square roots and divisions do not pay: an AVX-512
    // copy measured 15 % slower than this one on a Sapphire Rapids-class Xeon
    // (build/bin/kernel_isa_bench), so x86-64-v4 CPUs run the x86-64-v3 copy.
    case KernelIsa::x86_64_v4:
    case KernelIsa::x86_64_v3: return update_v3<ClearGrad>(param, grad, exp_avg, exp_avg_sq, n, s);
    case KernelIsa::baseline: return update_range<ClearGrad>(param, grad, exp_avg, exp_avg_sq, n, s);
  }
}

}  // namespace

void adamw_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                  const AdamWScalars& s) {
  update<false>(param, grad, exp_avg, exp_avg_sq, n, s);
}

void adamw_update_clearing_grad(float* param, float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                                const AdamWScalars& s) {
  update<true>(param, grad, exp_avg, exp_avg_sq, n, s);
}

}  // namespace mt
