#include "core/kernels/sum_of_squares_kernel.h"

#include "core/kernels/isa.h"

namespace mt {
namespace {

// Sixteen independent double accumulators, lane by lane: the compiler turns the inner loop into
// whole-vector operations without reassociating any sum. Written once, compiled per ISA below.
inline __attribute__((always_inline)) double sum_range(const float* __restrict x, int64_t n) {
  constexpr int kLanes = 16;  // four AVX2 FMA chains in flight, enough to hide their latency
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(x[i + j]) * static_cast<double>(x[i + j]);
  double total = 0;
  for (; i < n; ++i) total += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  for (double lane : lanes) total += lane;
  return total;
}

MT_TARGET_X86_64_V3 double sum_v3(const float* x, int64_t n) { return sum_range(x, n); }
MT_TARGET_X86_64_V4 double sum_v4(const float* x, int64_t n) { return sum_range(x, n); }

}  // namespace

double sum_of_squares(const float* x, int64_t n) {
  switch (kernel_isa()) {
    case KernelIsa::x86_64_v4: return sum_v4(x, n);
    case KernelIsa::x86_64_v3: return sum_v3(x, n);
    case KernelIsa::baseline: return sum_range(x, n);
  }
  return sum_range(x, n);
}

}  // namespace mt
