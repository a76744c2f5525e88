#include "core/env/resources.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

namespace mt {
namespace {

// A positive count from the environment, or 0: "4", the first level of OMP_NUM_THREADS="4,2",
// Slurm's "2(x3)".
int positive_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return 0;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  const bool whole = end != value && (*end == '\0' || *end == ',' || *end == '(');
  return whole && parsed > 0 && parsed < (1 << 20) ? static_cast<int>(parsed) : 0;
}

}  // namespace

int ranks_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const int ranks = positive_env(name)) return ranks;
  return 1;
}

int default_threads() {
  if (int omp = positive_env("OMP_NUM_THREADS")) return omp;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / ranks_on_this_node());
}

namespace {
std::atomic<int64_t> freed_memory_kept{-1};

// Whether the user set glibc's mmap or trim threshold, which the engine then leaves as they are.
bool user_steers_malloc() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_")) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!tunables) return false;
  const std::string_view set(tunables);
  return set.find("glibc.malloc.mmap_threshold") != std::string_view::npos ||
         set.find("glibc.malloc.trim_threshold") != std::string_view::npos;
}
}  // namespace

int64_t keep_freed_memory_for_reuse() {
  int64_t kept = 0;
  if (!user_steers_malloc()) {
    // Some glibc versions cap the threshold at 32 MiB on 64-bit (HEAP_MAX_SIZE / 2); 2.36 takes 1 GiB.
    kept = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kFreedMemoryKeptBytes)) ? kFreedMemoryKeptBytes : 0;
    if (!kept && mallopt(M_MMAP_THRESHOLD, 32 << 20)) kept = 32 << 20;
    mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  }
  freed_memory_kept = kept;
  return kept;
}

int64_t freed_memory_kept_bytes() { return freed_memory_kept.load(); }

int64_t prefault_heap_top(int64_t bytes) {
  if (freed_memory_kept_bytes() <= 0 || bytes <= 0) return 0;
  // The top chunk is the heap's last free bytes: keepcost is its size, ending at the break. Its
  // first page holds malloc's chunk header, already backed; the populate leaves contents as they are.
  const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t free_top = mallinfo2().keepcost;
  if (free_top >= top) return 0;
  const std::uintptr_t start = (top - free_top + page - 1) / page * page;
  if (start >= top) return 0;
  const std::uintptr_t length = std::min<std::uintptr_t>(static_cast<std::uintptr_t>(bytes), top - start) / page * page;
  if (length == 0 || madvise(reinterpret_cast<void*>(start), length, MADV_POPULATE_WRITE) != 0) return 0;
  return static_cast<int64_t>(length);
}

bool set_blas_threads(int threads) {
  // Looked up at run time: the BLAS is whichever library Debian's alternatives point at.
  using SetThreads = void (*)(int);
  auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!set) return false;
  set(threads);
  return true;
}

int64_t memory_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return 0;
}

std::optional<std::string> host_memory_problem(int64_t per_rank_bytes, int local_ranks, const std::string& what) {
  const int64_t available = memory_available_bytes();
  const double need = static_cast<double>(per_rank_bytes) * std::max(1, local_ranks);
  // Leave a tenth for the runtime itself (LibTorch alone holds ~0.5 GB per rank) and the system.
  if (available <= 0 || need <= 0.9 * static_cast<double>(available)) return std::nullopt;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return fmt::format(
      "{} needs about {:.1f} GiB of memory per rank, {:.1f} GiB for the {} rank(s) on "
      "this host, but {:.1f} GiB is available",
      what, static_cast<double>(per_rank_bytes) / kGiB, need / kGiB, std::max(1, local_ranks),
      static_cast<double>(available) / kGiB);
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

int64_t peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    int64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // ru_maxrss is KiB on Linux
}

}  // namespace mt
