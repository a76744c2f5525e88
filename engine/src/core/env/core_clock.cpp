#include "core/env/core_clock.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#define MT_STRINGIFY_(x) #x
#define MT_STRINGIFY(x) MT_STRINGIFY_(x)

namespace mt {

double measure_core_clock_mhz() {
#if defined(__x86_64__)
  // A register-to-register add: some cores fold additions of an immediate at rename (Intel's
  // Golden Cove), which would read as a faster clock; none fold this.
#define MT_ADDS_PER_BLOCK 100  // one number for the assembler's .rept and for the count below
  constexpr long kAddsPerBlock = MT_ADDS_PER_BLOCK, kBlocks = 20000;  // 2M cycles: about 0.6 ms at 3.5 GHz
  double best_mhz = 0;
  for (int run = 0; run < 5; ++run) {
    std::uint64_t sum = 0;
    const std::uint64_t step = 1;
    const auto start = std::chrono::steady_clock::now();
    for (long block = 0; block < kBlocks; ++block)
      asm volatile(".rept " MT_STRINGIFY(MT_ADDS_PER_BLOCK) "\n\tadd %[step], %[sum]\n\t.endr"
                   : [sum] "+r"(sum)
                   : [step] "r"(step));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 0) best_mhz = std::max(best_mhz, kAddsPerBlock * kBlocks / seconds / 1e6);
  }
  return best_mhz;
#else
  return 0;
#endif
}

}  // namespace mt
