// Error bounds for comparing a float32 kernel with a float32 reference that rounds differently:
// another instruction set (ATen's AVX-512 kernels round unlike its AVX2 ones), another operation
// order, fused multiply-adds. An absolute bound one ulp wide holds only on the CPU it was tuned
// on; these bounds follow from the computation's own error analysis instead. Each tolerance is a
// small multiple of float32's machine epsilon times the magnitude the result's rounding error
// scales with — the input's size where a function amplifies input rounding (exp, erf), the
// largest term where a sum cancels — so a correct kernel meets it on every ISA while a wrong
// constant, index or formula misses it by orders of magnitude.
#pragma once

#include <torch/torch.h>

#include <cfloat>
#include <string>

namespace mt::testing {

// float32's unit round-off doubled: the distance from 1.0 to the next float, 2^-23.
constexpr double kFloatEps = FLT_EPSILON;

// The largest |actual - expected| / tolerance over all elements (tolerance broadcasts): <= 1
// means every element is within its bound. Computed in float64; NaN where any element is NaN.
inline double worst_error_ratio(const torch::Tensor& actual, const torch::Tensor& expected,
                                const torch::Tensor& tolerance) {
  const auto a = actual.to(torch::kDouble), e = expected.to(torch::kDouble);
  return ((a - e).abs() / tolerance.to(torch::kDouble)).max().item<double>();
}

// The same against one tolerance for every element.
inline double worst_error_ratio(const torch::Tensor& actual, const torch::Tensor& expected, double tolerance) {
  return worst_error_ratio(actual, expected, torch::full({}, tolerance, torch::kDouble));
}

// Largest magnitude in a tensor, in float64.
inline double max_magnitude(const torch::Tensor& t) { return t.to(torch::kDouble).abs().max().item<double>(); }

}  // namespace mt::testing
