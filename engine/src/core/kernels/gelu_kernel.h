// Exact (erf) GELU on raw float arrays, forward and backward, vectorised by hand. The backward
// shares one exponential between the erf and the Gaussian density. Callers split the range
// across threads.
#pragma once

#include <cstdint>

namespace mt {

// y = x · Φ(x), Φ the standard normal CDF.
void gelu_forward(const float* x, float* y, int64_t n);

// dx = dy · (Φ(x) + x · φ(x)), φ the standard normal density.
void gelu_backward(const float* x, const float* dy, float* dx, int64_t n);

}  // namespace mt
