// Σ x² over a float array, for the global gradient norm: pure arithmetic on raw arrays, so each
// instruction set gets its own compiled copy.
#pragma once

#include <cstdint>

namespace mt {

// Accumulated in double: a float's square is exact there, and the pass is memory-bound, so the
// widening costs no time. NaN and infinity propagate (the health check relies on it).
double sum_of_squares(const float* x, int64_t n);

}  // namespace mt
