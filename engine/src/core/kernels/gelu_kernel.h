// Exact (erf) GELU on raw float arrays, vectorised by hand. The derivative comes out of the same
// pass as the value (one exponential serves the erf and the Gaussian density), so a training
// forward keeps the derivative instead of the input and the backward is one multiplication.
// Callers split the range across threads.
#pragma once

#include <cstdint>

namespace mt {

// y = x · Φ(x), Φ the standard normal CDF.
void gelu_forward(const float* x, float* y, int64_t n);

// y = x · Φ(x) and dydx = Φ(x) + x · φ(x), φ the standard normal density.
void gelu_forward_with_derivative(const float* x, float* y, float* dydx, int64_t n);

}  // namespace mt
