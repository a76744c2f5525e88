#include "core/kernels/gelu_kernel.h"

#include "core/kernels/isa.h"
#include "core/kernels/simd.h"

namespace mt {
namespace {

template <int Lanes>
struct Gelu {
  using S = simd::Simd<Lanes>;
  using F = typename S::F;

  // Φ(x) and φ(x) together. With z = |x|/√2, erfc(z) ≈ t·P(t)·e^{-z²}, t = 1/(1 + p·z)
  // (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7); e^{-z²} = e^{-x²/2} is also √(2π)·φ(x).
  // Φ is built from the tail for negative x, so it keeps its relative precision there.
  static MT_SIMD_INLINE void cdf_and_pdf(F x, F& cdf, F& pdf) {
    const F z = S::abs(x) * 0.70710678118654752f;
    const F gauss = S::exp(x * x * -0.5f);
    const F t = 1.0f / (z * 0.3275911f + 1.0f);
    F poly = S::splat(1.061405429f);
    poly = poly * t - 1.453152027f;
    poly = poly * t + 1.421413741f;
    poly = poly * t - 0.284496736f;
    poly = poly * t + 0.254829592f;
    const F half_tail = poly * t * gauss * 0.5f;  // Φ(-|x|)
    cdf = x < 0.0f ? half_tail : 1.0f - half_tail;
    pdf = gauss * 0.39894228040143268f;  // 1/√(2π)
  }

  static MT_SIMD_INLINE F forward(F x) {
    F cdf, pdf;
    cdf_and_pdf(x, cdf, pdf);
    return x * cdf;
  }

  static MT_SIMD_INLINE void forward_range(const float* x, float* y, int64_t n) {
    int64_t i = 0;
    for (; i + Lanes <= n; i += Lanes) S::store(y + i, forward(S::load(x + i)));
    if (i < n) S::store_partial(y + i, forward(S::load_partial(x + i, n - i, 0.0f)), n - i);
  }

  // `count` elements from i: a whole vector, or the tail.
  static MT_SIMD_INLINE void with_derivative(const float* x, float* y, float* dydx, int64_t i, int64_t count) {
    const F v = count == Lanes ? S::load(x + i) : S::load_partial(x + i, count, 0.0f);
    F cdf, pdf;
    cdf_and_pdf(v, cdf, pdf);
    const F value = v * cdf, slope = cdf + v * pdf;
    if (count == Lanes) {
      S::store(y + i, value);
      S::store(dydx + i, slope);
    } else {
      S::store_partial(y + i, value, count);
      S::store_partial(dydx + i, slope, count);
    }
  }

  static MT_SIMD_INLINE void forward_with_derivative_range(const float* x, float* y, float* dydx, int64_t n) {
    int64_t i = 0;
    for (; i + Lanes <= n; i += Lanes) with_derivative(x, y, dydx, i, Lanes);
    if (i < n) with_derivative(x, y, dydx, i, n - i);
  }
};

MT_TARGET_X86_64_V3 void gelu_forward_v3(const float* x, float* y, int64_t n) { Gelu<8>::forward_range(x, y, n); }

MT_TARGET_X86_64_V3 void gelu_with_derivative_v3(const float* x, float* y, float* dydx, int64_t n) {
  Gelu<8>::forward_with_derivative_range(x, y, dydx, n);
}

MT_TARGET_X86_64_V4 void gelu_forward_v4(const float* x, float* y, int64_t n) { Gelu<16>::forward_range(x, y, n); }

MT_TARGET_X86_64_V4 void gelu_with_derivative_v4(const float* x, float* y, float* dydx, int64_t n) {
  Gelu<16>::forward_with_derivative_range(x, y, dydx, n);
}

}  // namespace

void gelu_forward(const float* x, float* y, int64_t n) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return gelu_forward_v4(x, y, n);
    case KernelIsa::x86_64_v3: return gelu_forward_v3(x, y, n);
    case KernelIsa::baseline: return Gelu<4>::forward_range(x, y, n);
  }
}

void gelu_forward_with_derivative(const float* x, float* y, float* dydx, int64_t n) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return gelu_with_derivative_v4(x, y, dydx, n);
    case KernelIsa::x86_64_v3: return gelu_with_derivative_v3(x, y, dydx, n);
    case KernelIsa::baseline: return Gelu<4>::forward_with_derivative_range(x, y, dydx, n);
  }
}

}  // namespace mt
