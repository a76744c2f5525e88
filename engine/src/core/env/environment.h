// The software and hardware stack a result was produced on, as recorded in result JSON and
// printed by `mtengine version` / `doctor`: everything that decides a CPU number (CPU, BLAS and
// its measured speed, memory copy bandwidth, threads, denormal mode, the environment variables that steer them).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/env/blas_info.h"
#include "core/env/cpu_info.h"
#include "core/cuda/cuda_device.h"
#include "core/env/float_mode.h"

namespace mt {

struct Environment {
  std::string libtorch;
  std::string mpi;
  std::string compiler;
  std::string build_type;
  std::string build_revision;
  bool build_tree_dirty = false;
  std::string os;
  std::string kernel;
  CpuInfo cpu;
  BlasInfo blas;
  double memory_copy_gbps_per_thread = 0;  // probed with every launch (memory_bandwidth.h)
  double probe_ms = 0;                     // wall time of that probe and the SGEMM calibration (blas) together
  double sgemm_probe_ms = 0;               // of the SGEMM calibration alone: the BLAS library's first calls included
  FloatMode float_mode;
  int threads_per_rank = 0;
  int64_t freed_memory_kept_bytes = -1;  // keep_freed_memory_for_reuse() (resources.h); -1: not called
  int64_t heap_huge_pages_bytes = -1;    // advise_heap_huge_pages() (huge_pages.h); -1: not called
  std::string transparent_huge_pages;    // the kernel's THP mode: always, madvise, never; "": unknown
  std::string simd_kernels;              // instruction set the hand-vectorised kernels run with
  std::vector<std::pair<std::string, std::string>> env_vars;  // those of kSteeringVariables set
  bool gpu_used = false;
  GpuInfo gpu;  // NCCL's version always (when built with it); the GPU fields when one was used
};

// The variables that change how fast the CPU path runs, recorded when set.
extern const std::vector<std::string> kSteeringVariables;

// Build facts only (cheap, no file reads): what `version` reports.
Environment build_environment();
// Build facts plus the machine: OS, kernel, CPU, the BLAS this process runs (probed), the
// denormal mode, the kernels' ISA and the steering variables.
Environment collect_environment(int threads_per_rank, bool gpu_used = false);

nlohmann::json to_json(const Environment& env, bool include_machine);

// Generated at build time from the git checkout (cmake/WriteBuildRevision.cmake).
const char* build_revision();
bool build_tree_dirty();

}  // namespace mt
