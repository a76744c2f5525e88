#include "core/env/memory_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>

namespace mt {

double probe_copy_gbps_per_thread() {
  // Larger than the last-level cache of the machines we run on (32 MiB per CCD on EPYC), so the
  // copy streams from memory.
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  std::unique_ptr<char[]> from(new (std::nothrow) char[kBytes]), to(new (std::nothrow) char[kBytes]);
  if (!from || !to) return 0;
  std::memset(from.get(), 1, kBytes);  // touch every page before timing
  std::memset(to.get(), 0, kBytes);
  double best_seconds = 0;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(to.get(), from.get(), kBytes);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (best_seconds == 0 || seconds < best_seconds) best_seconds = seconds;
    from[static_cast<std::size_t>(i)] = to[kBytes - 1 - static_cast<std::size_t>(i)];  // keep the copy observable
  }
  return best_seconds > 0 ? 2.0 * static_cast<double>(kBytes) / best_seconds / 1e9 : 0;
}

}  // namespace mt
