#include "core/env/environment.h"

#include <sys/utsname.h>
#include <torch/version.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/comm/mpi/mpi_session.h"
#include "core/env/core_clock.h"
#include "core/env/huge_pages.h"
#include "core/env/memory_bandwidth.h"
#include "core/env/resources.h"
#include "core/kernels/isa.h"

#ifndef MT_BUILD_TYPE
#define MT_BUILD_TYPE "unknown"
#endif

namespace mt {
namespace {

std::string unquote(std::string s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) return unquote(line.substr(12));
  return "unknown";
}

std::string kernel_release() {
  utsname info{};
  if (uname(&info) != 0) return "unknown";
  return std::string(info.sysname) + " " + info.release;
}

}  // namespace

Environment build_environment() {
  Environment env;
  env.libtorch = TORCH_VERSION;
  env.mpi = mpi_library_version();
  env.compiler = std::string("gcc ") + __VERSION__;
  env.build_type = MT_BUILD_TYPE;
  env.build_revision = build_revision();
  env.build_tree_dirty = build_tree_dirty();
  return env;
}

const std::vector<std::string> kSteeringVariables = {
    "OMP_NUM_THREADS",    "OMP_WAIT_POLICY",        "OMP_PROC_BIND",
    "OMP_PLACES",         "MKL_NUM_THREADS",        "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",           "OPENBLAS_NUM_THREADS",   "OPENBLAS_CORETYPE",
    "KMP_AFFINITY",       "GOMP_CPU_AFFINITY",      "DNNL_MAX_CPU_ISA",
    "ONEDNN_MAX_CPU_ISA", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
    "GLIBC_TUNABLES"};

Environment collect_environment(int threads_per_rank, bool gpu_used) {
  Environment env = build_environment();
  env.os = os_pretty_name();
  env.kernel = kernel_release();
  env.cpu = read_cpu_info();
  // What the probes cost every job, so that the cost is a measured figure in every result.
  using Clock = std::chrono::steady_clock;
  const auto probes_start = Clock::now();
  env.cpu.measured_mhz = measure_core_clock_mhz();  // before the BLAS probe, which judges against the peak
  const auto sgemm_start = Clock::now();
  env.blas = detect_blas(env.cpu);
  const auto sgemm_end = Clock::now();
  env.memory_copy_gbps_per_thread = probe_copy_gbps_per_thread();
  env.sgemm_probe_ms = std::chrono::duration<double, std::milli>(sgemm_end - sgemm_start).count();
  env.probe_ms = std::chrono::duration<double, std::milli>(Clock::now() - probes_start).count();
  env.float_mode = current_float_mode();
  env.threads_per_rank = threads_per_rank;
  env.freed_memory_kept_bytes = freed_memory_kept_bytes();
  env.heap_huge_pages_bytes = heap_huge_pages_bytes();
  env.transparent_huge_pages = transparent_huge_pages_mode();
  env.simd_kernels = kernel_isa_name(kernel_isa());
  env.gpu_used = gpu_used;
  if (gpu_used) env.gpu = gpu_info();
  for (const auto& name : kSteeringVariables)
    if (const char* value = std::getenv(name.c_str())) env.env_vars.emplace_back(name, value);
  return env;
}

nlohmann::json to_json(const Environment& env, bool include_machine) {
  nlohmann::json out = {{"libtorch", env.libtorch},
                        {"mpi", env.mpi},
                        {"compiler", env.compiler},
                        {"build_type", env.build_type},
                        {"build_revision", env.build_revision},
                        {"build_tree_dirty", env.build_tree_dirty}};
  if (!include_machine) return out;
  out["os"] = env.os;
  out["kernel"] = env.kernel;
  out["cpu_model"] = env.cpu.model;
  out["cpu_vendor"] = env.cpu.vendor;
  out["cpu_family"] = env.cpu.family;
  out["cpu_model_number"] = env.cpu.model_number;
  out["cpu_stepping"] = env.cpu.stepping;
  out["cpu_cores"] = env.cpu.logical_cpus;
  out["threads_per_core"] = env.cpu.threads_per_core;
  out["cpu_mhz"] = env.cpu.mhz;
  if (env.cpu.peak_clock_measured()) out["cpu_mhz_measured"] = env.cpu.measured_mhz;
  out["memory_mib"] = env.cpu.memory_mib;
  out["cpu_isa"] = env.cpu.isa;
  out["blas"] = env.blas.identity();  // threads and speed are fields of their own, per launch
  out["blas_vendor"] = env.blas.vendor;
  out["blas_version"] = env.blas.version;
  out["blas_core"] = env.blas.core;
  out["blas_threads"] = env.blas.threads;
  out["blas_gflops_per_thread"] = env.blas.gflops_per_thread;
  out["blas_efficiency"] = env.blas.efficiency;
  if (!env.blas.warning.empty()) out["blas_warning"] = env.blas.warning;
  out["memory_copy_gbps_per_thread"] = env.memory_copy_gbps_per_thread;
  out["probe_ms"] = env.probe_ms;
  out["sgemm_probe_ms"] = env.sgemm_probe_ms;
  out["threads_per_rank"] = env.threads_per_rank;
  if (env.freed_memory_kept_bytes >= 0) out["freed_memory_kept_bytes"] = env.freed_memory_kept_bytes;
  if (env.heap_huge_pages_bytes >= 0) out["heap_huge_pages_bytes"] = env.heap_huge_pages_bytes;
  if (!env.transparent_huge_pages.empty()) out["transparent_huge_pages"] = env.transparent_huge_pages;
  out["flush_denormal"] = env.float_mode.flush_to_zero && env.float_mode.denormals_are_zero;
  out["simd_kernels"] = env.simd_kernels;
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& [name, value] : env.env_vars) vars[name] = value;
  out["env_vars"] = vars;
  if (built_with_nccl()) out["nccl"] = env.gpu_used ? env.gpu.nccl : gpu_info_nccl_version();
  if (env.gpu_used) {
    out["cuda"] = env.gpu.runtime;
    out["driver"] = env.gpu.driver;
    out["gpu_model"] = env.gpu.model;
    out["gpu_count"] = env.gpu.device_count;
  }
  return out;
}

}  // namespace mt
