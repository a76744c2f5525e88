#include "core/env/blas_info.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "core/env/fact_cache.h"
#include "core/kernels/blas.h"

namespace mt {
namespace {

template <typename Fn>
Fn lookup(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

// "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for ..." -> 2024.2
std::string mkl_version(const std::string& text) {
  const auto at = text.find("Version ");
  if (at == std::string::npos) return text;
  const auto start = at + 8;
  const auto end = text.find_first_of("- ", start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// MKL states the code path it dispatched to only in its verbose log, printed to stdout on the
// next call: capture one call's log in a temporary file.
std::string mkl_stated_code_path() {
  auto verbose = lookup<int (*)(int)>("MKL_Verbose");  // the C entry; mkl_verbose is Fortran's
  if (!verbose) return "";
  std::FILE* capture = std::tmpfile();
  if (!capture) return "";
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  dup2(fileno(capture), STDOUT_FILENO);
  verbose(1);
  float a = 1, b = 1, c = 0;
  gemm_row_major(false, false, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
  verbose(0);
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);

  std::string log;
  std::rewind(capture);
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), capture)) log += buffer;
  std::fclose(capture);
  // "... for Intel(R) 64 architecture Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2)
  //  enabled processors, Lnx 2.45GHz lp64 gnu_thread"
  const std::string marker = "architecture ";
  const auto start = log.find(marker);
  if (start == std::string::npos) return "";
  const auto end = log.find(", Lnx", start);
  if (end == std::string::npos) return "";
  return log.substr(start + marker.size(), end - start - marker.size());
}

// Where no library answers: the BLAS mapped into this process, by file name.
std::string mapped_blas_path() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const auto slash = line.find('/');
    if (slash != std::string::npos && line.find("blas", slash) != std::string::npos) return line.substr(slash);
  }
  return "";
}

// One thread's best 256^3 SGEMM (34 MFLOP, 0.2 ms on a core of this decade), in GFLOP/s. The first
// calls run slow — the library warming up, a core waking — and stopping once the best had not
// improved by 1 % for 10 calls read 20 % low on a 2-vCPU Xeon VM, so calls go on until the best has
// held for 30 calls (at most 80).
double best_single_thread_sgemm_gflops() {
  constexpr int64_t n = 256;
  constexpr int kSettledCalls = 30, kMostCalls = 80;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  for (int call = 0, since_better = 0; call < kMostCalls && since_better < kSettledCalls; ++call) {
    const auto start = Clock::now();
    gemm_row_major(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    since_better = seconds < best * 0.99 ? 0 : since_better + 1;
    best = std::min(best, seconds);
  }
  return 2.0 * n * n * n / best / 1e9;
}

double probe_gflops_per_thread(int threads) {
  // Every thread the job computes with runs its own single-threaded product at once, so a
  // neighbour on any core shows, and nothing is timed but the GEMM: one product shared by the
  // threads pays for waking them at every call (the engine lets idle OpenMP threads sleep), and on
  // that VM two threads read 118 GFLOP/s each at 256^3, 178 at 384^3 and 185 at 512^3, 161-204 over
  // ten launches at 384^3. The libraries run single-threaded inside a parallel region. The mean
  // over the threads; 5-15 ms in all.
  const int team = std::max(1, threads);
  std::vector<double> gflops(static_cast<std::size_t>(team), 0.0);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int thread = 0; thread < team; ++thread)
    gflops[static_cast<std::size_t>(thread)] = best_single_thread_sgemm_gflops();
  double sum = 0;
  for (double g : gflops) sum += g;
  return sum / team;
}

// OpenBLAS cores that predate AVX2: on an AVX2 or AVX-512 CPU they mean OpenBLAS did not
// recognise the CPU and fell back.
bool is_pre_avx2_openblas_core(const std::string& core) {
  static const char* const old[] = {"Prescott", "Core2", "Penryn",    "Dunnington", "Nehalem",
                                    "Katmai",   "Atom",  "Barcelona", "Opteron",    "Sandybridge"};
  return std::any_of(std::begin(old), std::end(old), [&](const char* name) { return core == name; });
}

}  // namespace

std::string BlasInfo::identity() const {
  std::string out = vendor;
  if (!version.empty()) out += " " + version;
  if (!core.empty()) out += " (" + core + ")";
  return out;
}

std::string BlasInfo::summary() const {
  std::string out = identity();
  if (threads > 0) out += fmt::format(", {} threads", threads);
  if (gflops_per_thread > 0) out += fmt::format(", SGEMM {:.0f} GFLOP/s per thread", gflops_per_thread);
  return out;
}

void judge_blas(BlasInfo& blas, const CpuInfo& cpu) {
  blas.warning.clear();
  const bool avx2_cpu = cpu.fp32_flops_per_cycle >= 32;
  if (blas.vendor == "OpenBLAS" && avx2_cpu && is_pre_avx2_openblas_core(blas.core)) {
    blas.warning = fmt::format(
        "OpenBLAS runs its {} core on a CPU with {}: GEMMs run several times slower than they "
        "could; set OPENBLAS_CORETYPE={} for this run",
        blas.core, cpu.isa, cpu.isa.find("avx512f") != std::string::npos ? "SkylakeX" : "Haswell");
    return;
  }
  if (blas.vendor == "reference" || blas.vendor == "none") {
    blas.warning = "no optimised BLAS found: GEMMs run on the reference implementation";
    return;
  }
  // Below 30% of the core's vector peak, something is wrong with the kernels
  // (a fallback path, or a machine whose cores are shared with other work).
  if (blas.efficiency > 0 && blas.efficiency < 0.30) {
    blas.warning = fmt::format(
        "{} runs SGEMM at {:.0f} GFLOP/s per thread, {:.0f}% of this CPU's fp32 peak ({} at "
        "{:.0f} MHz {}): a fallback code path, or cores shared with other work",
        blas.vendor, blas.gflops_per_thread, 100 * blas.efficiency, cpu.isa, cpu.peak_clock_mhz(),
        cpu.peak_clock_source());
  }
}

BlasInfo detect_blas(const CpuInfo& cpu) {
  BlasInfo blas;
  if (auto version = lookup<void (*)(char*, int)>("MKL_Get_Version_String")) {
    char text[256] = {};
    version(text, sizeof(text) - 1);
    blas.vendor = "MKL";
    blas.version = mkl_version(text);
    // The code path follows from the library, the CPU and the variables that steer MKL's dispatch.
    const char* enable = std::getenv("MKL_ENABLE_INSTRUCTIONS");
    const char* cbwr = std::getenv("MKL_CBWR");
    const std::string key = fmt::format("mkl code path|{}|{}|MKL_ENABLE_INSTRUCTIONS={}|MKL_CBWR={}", text,
                                        cpu.identity(), enable ? enable : "", cbwr ? cbwr : "");
    blas.core = remembered_fact(key, mkl_stated_code_path);
    if (auto threads = lookup<int (*)()>("MKL_Get_Max_Threads")) blas.threads = threads();
  } else if (auto config = lookup<char* (*)()>("openblas_get_config")) {
    blas.vendor = "OpenBLAS";
    blas.version = config();
    if (auto core = lookup<char* (*)()>("openblas_get_corename")) blas.core = core();
    if (auto threads = lookup<int (*)()>("openblas_get_num_threads")) blas.threads = threads();
  } else {
    const std::string path = mapped_blas_path();
    blas.vendor = path.empty() ? "none" : "reference";
    blas.version = path;
  }
  if (blas.vendor != "none") {
    blas.gflops_per_thread = probe_gflops_per_thread(blas.threads);
    const double peak = cpu.fp32_peak_gflops_per_core();
    if (peak > 0) blas.efficiency = blas.gflops_per_thread / peak;
  }
  judge_blas(blas, cpu);
  return blas;
}

}  // namespace mt
