#include "core/env/float_mode.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace mt {
namespace {

#if defined(__x86_64__)
constexpr unsigned kFtz = 0x8000;  // MXCSR bit 15
constexpr unsigned kDaz = 0x0040;  // MXCSR bit 6
#endif

}  // namespace

bool set_flush_denormal(bool on) {
#if defined(__x86_64__)
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kFtz | kDaz) : (csr & ~(kFtz | kDaz)));
  return true;
#else
  (void)on;
  return false;
#endif
}

FloatMode current_float_mode() {
  FloatMode mode;
#if defined(__x86_64__)
  const unsigned csr = _mm_getcsr();
  mode.flush_to_zero = (csr & kFtz) != 0;
  mode.denormals_are_zero = (csr & kDaz) != 0;
#endif
  return mode;
}

}  // namespace mt
