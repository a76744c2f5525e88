#include "core/env/memory_bandwidth.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mt {
namespace {

// Anonymous memory whose pages are all mapped before anything is timed; unmapped on destruction.
class ProbeBuffer {
 public:
  explicit ProbeBuffer(std::size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
  ~ProbeBuffer() {
    if (data_) munmap(data_, bytes_);
  }
  ProbeBuffer(const ProbeBuffer&) = delete;
  ProbeBuffer& operator=(const ProbeBuffer&) = delete;
  char* data() const { return data_; }

 private:
  std::size_t bytes_;
  char* data_;
};

#if defined(__x86_64__)
__attribute__((target("clflushopt"))) void evict_from_caches(const char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; i += 64) _mm_clflushopt(const_cast<char*>(p + i));
  _mm_sfence();
}

bool can_evict() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("clflushopt");
}
#else
void evict_from_caches(const char*, std::size_t) {}
bool can_evict() { return false; }
#endif

}  // namespace

double probe_copy_gbps_per_thread() {
  // The copy has to stream from memory, not from a cache. Buffers larger than the last-level cache
  // (32 MiB per CCD on EPYC) do that, but a fresh 2 × 64 MiB costs 50-85 ms to map and touch on a
  // 2-vCPU Xeon VM, most of a probe that runs with every launch. Flushing two 8 MiB buffers out of
  // every cache before each copy reads the same rate there (14.4-14.9 GB/s against 13.9-14.5 for
  // 64 MiB) in about 12 ms. Where the flush instruction is missing, the large buffers.
  const bool evict = can_evict();
  const std::size_t bytes = std::size_t{evict ? 8u : 64u} << 20;
  ProbeBuffer from(bytes), to(bytes);
  if (!from.data() || !to.data()) return 0;
  std::memset(from.data(), 1, bytes);
  double best_seconds = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (evict) {
      evict_from_caches(from.data(), bytes);
      evict_from_caches(to.data(), bytes);
    }
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (best_seconds == 0 || seconds < best_seconds) best_seconds = seconds;
    from.data()[i] = to.data()[bytes - 1 - i];  // keep the copy observable
  }
  return best_seconds > 0 ? 2.0 * static_cast<double>(bytes) / best_seconds / 1e9 : 0;
}

}  // namespace mt
