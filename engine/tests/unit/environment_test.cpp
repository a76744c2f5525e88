#include <doctest/doctest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/env/blas_info.h"
#include "core/env/core_clock.h"
#include "core/env/cpu_info.h"
#include "core/env/float_mode.h"
#include "core/env/huge_pages.h"
#include "core/env/omp_wait_policy.h"
#include "core/env/resources.h"

namespace {

const char* kCpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 143\n"
    "model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz\n"
    "stepping\t: 8\n"
    "cpu MHz\t\t: 2699.998\n"
    "siblings\t: 2\n"
    "cpu cores\t: 1\n"
    "flags\t\t: fpu sse4_2 avx fma avx2 avx512f avx512_bf16 amx_tile\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: something else entirely\n";

const char* kMeminfo = "MemTotal:       24576000 kB\nMemFree:        1000 kB\n";

}  // namespace

TEST_CASE("cpuinfo gives the model, its numbers, threads per core, memory and ISA") {
  const mt::CpuInfo cpu = mt::parse_cpu_info(kCpuinfo, kMeminfo, 2);
  CHECK(cpu.model == "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz");
  CHECK(cpu.vendor == "GenuineIntel");
  CHECK(cpu.family == 6);
  CHECK(cpu.model_number == 143);
  CHECK(cpu.stepping == 8);
  CHECK(cpu.logical_cpus == 2);
  CHECK(cpu.threads_per_core == 2);
  CHECK(cpu.memory_mib == 24000);
  CHECK(cpu.isa == "amx avx512_bf16 avx512f avx2 fma avx sse4.2");
  CHECK(cpu.fp32_flops_per_cycle == 64);
  CHECK(cpu.mhz == doctest::Approx(2699.998));
}

TEST_CASE("a CPU's identity tells apart the processors a VM names alike") {
  CHECK(mt::parse_cpu_info(kCpuinfo, kMeminfo, 2).identity() ==
        "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz (GenuineIntel family 6 model 143 stepping 8; "
        "amx avx512_bf16 avx512f avx2 fma avx sse4.2)");
  // What 2-vCPU VMs on AMD's Zen 3 and Zen 4 show: the same model name, different numbers and ISA.
  const mt::CpuInfo zen3 = mt::parse_cpu_info(
      "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nstepping\t: 1\n"
      "flags\t\t: sse4_2 avx fma avx2\n",
      "", 2);
  const mt::CpuInfo zen4 = mt::parse_cpu_info(
      "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 1\n"
      "flags\t\t: sse4_2 avx fma avx2 avx512f avx512_bf16\n",
      "", 2);
  CHECK(zen3.model == zen4.model);
  CHECK(zen3.identity() != zen4.identity());
  CHECK(zen4.identity() ==
        "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1; avx512_bf16 avx512f avx2 fma avx sse4.2)");
}

TEST_CASE("the vector peak counts the measured clock where there is one, else the reported one") {
  mt::CpuInfo cpu = mt::parse_cpu_info(kCpuinfo, kMeminfo, 2);
  CHECK_FALSE(cpu.peak_clock_measured());
  CHECK(cpu.fp32_peak_gflops_per_core() == doctest::Approx(64 * 2.699998));
  cpu.measured_mhz = 3500;
  CHECK(cpu.peak_clock_measured());
  CHECK(cpu.peak_clock_mhz() == 3500);
  CHECK(cpu.fp32_peak_gflops_per_core() == doctest::Approx(64 * 3.5));
}

#if defined(__x86_64__)
TEST_CASE("the core clock is measured on x86-64, and agrees with itself") {
  // Not a speed assertion: a clock outside 0.2-10 GHz, or two measurements a factor of two apart
  // (each the best of five runs), says the chain did not take one cycle per addition.
  const double first = mt::measure_core_clock_mhz(), second = mt::measure_core_clock_mhz();
  CAPTURE(first);
  CAPTURE(second);
  CHECK(first > 200);
  CHECK(first < 10000);
  CHECK(std::max(first, second) / std::min(first, second) < 2.0);
}
#endif

TEST_CASE("an AVX2 machine without AVX-512 peaks at 32 fp32 FLOP per cycle") {
  const mt::CpuInfo cpu = mt::parse_cpu_info("vendor_id\t: AuthenticAMD\nflags\t\t: sse4_2 avx fma avx2\n", "", 2);
  CHECK(cpu.fp32_flops_per_cycle == 32);
  CHECK(cpu.isa == "avx2 fma avx sse4.2");
}

TEST_CASE("AMD's Zen 4 splits each AVX-512 instruction across its 256-bit pipes: AVX2's peak, not double") {
  const std::string zen4 =
      "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nflags\t\t: sse4_2 avx fma avx2 avx512f\n";
  const mt::CpuInfo split = mt::parse_cpu_info(zen4, "", 2);
  CHECK(split.fp32_flops_per_cycle == 32);
  CHECK(split.isa == "avx512f avx2 fma avx sse4.2");
  const std::string zen5 =
      "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nflags\t\t: sse4_2 avx fma avx2 avx512f\n";
  CHECK(mt::parse_cpu_info(zen5, "", 2).fp32_flops_per_cycle == 64);
  mt::BlasInfo blas;  // OpenBLAS's AVX-512 core still suits it
  blas.vendor = "OpenBLAS";
  blas.core = "Prescott";
  mt::judge_blas(blas, split);
  CHECK(blas.warning.find("OPENBLAS_CORETYPE=SkylakeX") != std::string::npos);
}

TEST_CASE("OpenBLAS on a pre-AVX2 core is called out on a CPU that supports better") {
  const mt::CpuInfo cpu = mt::parse_cpu_info(kCpuinfo, kMeminfo, 2);
  mt::BlasInfo blas;
  blas.vendor = "OpenBLAS";
  blas.core = "Prescott";
  blas.gflops_per_thread = 35;
  mt::judge_blas(blas, cpu);
  CHECK(blas.warning ==
        "OpenBLAS runs its Prescott core on a CPU with amx avx512_bf16 avx512f avx2 fma avx "
        "sse4.2: GEMMs run several times slower than they could; set OPENBLAS_CORETYPE=SkylakeX "
        "for this run");

  blas.core = "SkylakeX";
  mt::judge_blas(blas, cpu);
  CHECK(blas.warning.empty());
}

TEST_CASE("a BLAS far below the vector peak is called out, one near it is not") {
  const mt::CpuInfo cpu = mt::parse_cpu_info(kCpuinfo, kMeminfo, 2);
  mt::BlasInfo blas;
  blas.vendor = "MKL";
  blas.gflops_per_thread = 30;
  blas.efficiency = 30 / (64 * 2.699998);
  mt::judge_blas(blas, cpu);
  CHECK(blas.warning.find("MKL runs SGEMM at 30 GFLOP/s per thread, 17% of this CPU's fp32 peak") == 0);

  blas.gflops_per_thread = 120;
  blas.efficiency = 120 / (64 * 2.699998);
  mt::judge_blas(blas, cpu);
  CHECK(blas.warning.empty());
}

TEST_CASE("flush-to-zero turns subnormal results into zero, and can be switched off") {
  volatile float tiny = FLT_MIN;  // the smallest normal float
  REQUIRE(mt::set_flush_denormal(true));
  CHECK(mt::current_float_mode().flush_to_zero);
  CHECK(mt::current_float_mode().denormals_are_zero);
  CHECK(tiny / 4.0f == 0.0f);
  mt::set_flush_denormal(false);
  CHECK_FALSE(mt::current_float_mode().flush_to_zero);
  CHECK(tiny / 4.0f > 0.0f);
}

TEST_CASE("OpenMP workers wait passively only where ranks x threads oversubscribe the cores") {
  using mt::ThreadLayout;
  // Filling the cores exactly, or fewer: libgomp's own waiting (spin, then sleep).
  CHECK_FALSE(mt::wait_passively(ThreadLayout{2, 1, 2, 2}));
  CHECK_FALSE(mt::wait_passively(ThreadLayout{1, 2, 2, 2}));
  CHECK_FALSE(mt::wait_passively(ThreadLayout{1, 4, 1, 4}));  // each rank bound to its core
  CHECK_FALSE(mt::wait_passively(ThreadLayout{4, 2, 16, 16}));
  // More threads than the node has cores, or than this process may use: PASSIVE.
  CHECK(mt::wait_passively(ThreadLayout{2, 2, 2, 2}));
  CHECK(mt::wait_passively(ThreadLayout{1, 8, 2, 2}));
  CHECK(mt::wait_passively(ThreadLayout{4, 1, 2, 16}));
}

TEST_CASE("the thread layout comes from --threads, else the engine's default threads, and the launcher's local size") {
  const char* saved_threads = std::getenv("OMP_NUM_THREADS");
  const char* saved_local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const std::string threads_before = saved_threads ? saved_threads : "", local_before = saved_local ? saved_local : "";
  setenv("OMP_NUM_THREADS", "3,1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "5", 1);
  const char* plain[] = {"mtengine", "train"};
  const auto from_env = mt::current_thread_layout(2, plain);
  CHECK(from_env.threads_per_rank == 3);  // the outer level of a nested list
  CHECK(from_env.ranks_on_node == 5);
  CHECK(from_env.cpus_for_process >= 1);
  CHECK(from_env.cpus_on_node >= from_env.cpus_for_process);
  const char* flagged[] = {"mtengine", "train", "--threads", "7", "--steps", "2"};
  CHECK(mt::current_thread_layout(6, flagged).threads_per_rank == 7);  // the flag wins over the environment
  const char* joined[] = {"mtengine", "train", "--threads=6"};
  CHECK(mt::current_thread_layout(3, joined).threads_per_rank == 6);
  const char* zero[] = {"mtengine", "train", "--threads", "0"};  // 0: from the environment
  CHECK(mt::current_thread_layout(4, zero).threads_per_rank == 3);
  unsetenv("OMP_NUM_THREADS");
  CHECK(mt::current_thread_layout(2, plain).threads_per_rank == mt::default_threads());  // what the engine runs
  if (saved_threads) setenv("OMP_NUM_THREADS", threads_before.c_str(), 1);
  if (saved_local) {
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", local_before.c_str(), 1);
  } else {
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  }
}

namespace {

// Clears glibc's malloc variables for one test and puts them back after it.
class MallocVariablesCleared {
 public:
  MallocVariablesCleared() {
    for (const char* name : kNames) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(name);
    }
  }
  ~MallocVariablesCleared() {
    for (const auto& [name, value] : saved_) {
      if (value) setenv(name, value->c_str(), 1);
      else unsetenv(name);
    }
  }

 private:
  static constexpr const char* kNames[] = {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

}  // namespace

TEST_CASE("freed blocks up to 1 GiB stay in the heap for reuse: a 64 MiB block is not mapped afresh") {
  MallocVariablesCleared cleared;
  const int64_t kept = mt::keep_freed_memory_for_reuse();
  CHECK(kept == mt::kFreedMemoryKeptBytes);  // Debian 12's glibc (2.36) accepts it
  CHECK(mt::freed_memory_kept_bytes() == kept);
  // Open MPI's in-place all-reduce of 64 MiB allocates such a scratch block every call.
  const size_t mapped_before = mallinfo2().hblkhd;
  void* block = std::malloc(64 << 20);
  REQUIRE(block);
  CHECK(mallinfo2().hblkhd == mapped_before);  // from the heap, not a fresh mmap
  std::free(block);
}

TEST_CASE("a user's own malloc thresholds are left alone; other malloc tunables are not theirs") {
  MallocVariablesCleared cleared;
  setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
  CHECK(mt::keep_freed_memory_for_reuse() == mt::kFreedMemoryKeptBytes);
  setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=131072", 1);
  CHECK(mt::keep_freed_memory_for_reuse() == 0);
  CHECK(mt::freed_memory_kept_bytes() == 0);
  unsetenv("GLIBC_TUNABLES");
  setenv("MALLOC_MMAP_THRESHOLD_", "65536", 1);
  CHECK(mt::keep_freed_memory_for_reuse() == 0);
}

namespace {

// Whether every page of [begin, end) (page-aligned begin) is resident, by mincore.
bool resident(std::uintptr_t begin, std::uintptr_t end) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages((end - begin + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, pages.data()) != 0) return false;
  return std::all_of(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; });
}

}  // namespace

TEST_CASE("the heap's free top is backed ahead of use, where freed memory is kept") {
  MallocVariablesCleared cleared;
  REQUIRE(mt::keep_freed_memory_for_reuse() == mt::kFreedMemoryKeptBytes);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  // Grow the heap past all it has held, untouched, and free it back: the top now ends in fresh pages.
  void* grown = std::malloc(mallinfo2().keepcost + (std::size_t{64} << 20));
  REQUIRE(grown);
  std::free(grown);
  const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uintptr_t start = (top - mallinfo2().keepcost + page - 1) / page * page;
  std::uintptr_t frontier = start;  // the first page of the top chunk not yet backed
  while (frontier < top && resident(frontier, frontier + page)) frontier += page;
  REQUIRE(frontier + (std::uintptr_t{8} << 20) <= top);

  const auto wanted = static_cast<int64_t>(frontier - start + (std::uintptr_t{8} << 20));
  const int64_t backed = mt::prefault_heap_top(wanted);
  CHECK(backed == wanted);
  CHECK(resident(start, start + static_cast<std::uintptr_t>(backed)));
  // malloc still carves the top as before: the next block starts in the backed part.
  auto* block = static_cast<char*>(std::malloc(std::size_t{4} << 20));
  REQUIRE(block);
  CHECK(reinterpret_cast<std::uintptr_t>(block) < start + page);
  std::memset(block, 1, std::size_t{4} << 20);
  std::free(block);

  setenv("MALLOC_TRIM_THRESHOLD_", "131072", 1);  // the user's threshold: a free would trim the top again
  CHECK(mt::keep_freed_memory_for_reuse() == 0);
  CHECK(mt::prefault_heap_top(wanted) == 0);
}

TEST_CASE("the kernel's transparent huge page mode is the bracketed word, or unknown") {
  const auto dir = std::filesystem::temp_directory_path() / ("mt_thp_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto mode_of = [&](const std::string& text) {
    std::ofstream(dir / "enabled") << text;
    return mt::transparent_huge_pages_mode((dir / "enabled").string());
  };
  CHECK(mode_of("always [madvise] never\n") == "madvise");
  CHECK(mode_of("[always] madvise never\n") == "always");
  CHECK(mode_of("always madvise [never]\n") == "never");
  CHECK(mode_of("garbled\n").empty());
  CHECK(mt::transparent_huge_pages_mode((dir / "missing").string()).empty());
  std::filesystem::remove_all(dir);
}

namespace {

// Whether the mapping holding [at, at + bytes) is advised for transparent huge pages: its VmFlags
// in /proc/self/smaps carry "hg" (MADV_HUGEPAGE). That is what the engine does; whether the kernel
// then finds free 2 MiB pages at fault time is the machine's affair, so it is not asserted.
bool advised_for_huge_pages(const void* at, std::size_t bytes) {
  std::ifstream smaps("/proc/self/smaps");
  const auto begin = reinterpret_cast<std::uintptr_t>(at), end = begin + bytes;
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &low, &high) == 2 && line.find(':') > line.find(' ')) {
      inside = low <= begin && end <= high;  // a mapping's first line: "low-high perms ..."
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("the heap's top is advised for huge pages where the kernel asks for advice, unless the user chose") {
  MallocVariablesCleared cleared;
  REQUIRE(mt::keep_freed_memory_for_reuse() == mt::kFreedMemoryKeptBytes);
  const std::string mode = mt::transparent_huge_pages_mode();
  const int64_t advised = mt::advise_heap_huge_pages();
  CHECK(mt::heap_huge_pages_bytes() == advised);
  if (mode != "madvise") {
    // "always" needs no advice and "never" takes none: nothing is advised (this machine: `mode`).
    CHECK(advised == 0);
    return;
  }
  CHECK(advised >= mt::kHugePageHeapBytes);
  // A block malloc carves after the advice lies in the advised part of the heap.
  const std::size_t bytes = std::size_t{16} << 20;
  auto* block = static_cast<char*>(std::malloc(bytes));
  REQUIRE(block);
  // Its first bytes may share the page where the reservation began, below the advised part.
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  CHECK(advised_for_huge_pages(block + page, bytes - page));
  std::free(block);

  setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", 1);  // the user's choice, glibc's to apply
  CHECK(mt::advise_heap_huge_pages() == 0);
}
