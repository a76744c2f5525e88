// Which BLAS this process actually runs its GEMMs on, and how fast. The link name says little
// (Debian's libblas.so.3 may be the reference BLAS or OpenBLAS; OpenBLAS may pick a fallback core
// on a CPU it does not know, ~3x slower), so the library is asked directly and a short SGEMM
// probe measures it against the CPU's vector peak.
#pragma once

#include <string>

#include "core/env/cpu_info.h"

namespace mt {

struct BlasInfo {
  std::string vendor = "none";  // MKL, OpenBLAS, reference, none
  std::string version;
  std::string core;              // OpenBLAS's core, or the code path MKL states
  int threads = 0;               // the BLAS's own thread setting
  double gflops_per_thread = 0;  // SGEMM probe, best of several
  double efficiency = 0;         // gflops_per_thread / the core's fp32 peak (CpuInfo::peak_clock_mhz)
  std::string warning;           // why the numbers are suspect; empty when they are not

  // "MKL 2024.2 (AVX2)": which library and kernels; the same for every launch on one machine.
  std::string identity() const;
  std::string summary() const;  // identity, threads and measured speed: one line for humans
};

// Probes the loaded BLAS. Cheap (a few milliseconds of SGEMM); call it when the CPU is quiet.
BlasInfo detect_blas(const CpuInfo& cpu);

// The judgement on its own, for tests: fills `warning` from the other fields.
void judge_blas(BlasInfo& blas, const CpuInfo& cpu);

}  // namespace mt
