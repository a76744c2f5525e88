#include "train/fused_adamw_kernel.h"

#include <cmath>

namespace mt {

void adamw_update(float* __restrict param, const float* __restrict grad, float* __restrict exp_avg,
                  float* __restrict exp_avg_sq, int64_t n, const AdamWScalars& s) {
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
  }
}

}  // namespace mt
