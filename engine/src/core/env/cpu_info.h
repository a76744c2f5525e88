// The CPU and memory of this machine, as the numbers that decide CPU results: model and its
// family/model/stepping, logical CPUs, threads per core, memory, and the vector ISA.
#pragma once

#include <string>

namespace mt {

struct CpuInfo {
  std::string model;   // "model name" of /proc/cpuinfo
  std::string vendor;  // GenuineIntel, AuthenticAMD, ...
  int family = -1, model_number = -1, stepping = -1;
  int logical_cpus = 0;  // online logical CPUs
  int threads_per_core = 1;
  double mhz = 0;           // as the kernel reports it (the base clock on most VMs)
  double measured_mhz = 0;  // as measure_core_clock_mhz found it at launch; 0 when not measured
  long memory_mib = 0;
  std::string isa;               // the vector extensions that matter for GEMMs, best first
  int fp32_flops_per_cycle = 8;  // per core, from the best ISA (2 vector FMA/add ports)

  // The clock a peak is derived at: the measured one where there is one, else the reported one.
  double peak_clock_mhz() const { return measured_mhz > 0 ? measured_mhz : mhz; }
  bool peak_clock_measured() const { return measured_mhz > 0; }
  const char* peak_clock_source() const { return peak_clock_measured() ? "measured" : "reported"; }
  // fp32 FLOP/s of one core at peak_clock_mhz: FLOPs per cycle × clock.
  double fp32_peak_gflops_per_core() const { return fp32_flops_per_cycle * peak_clock_mhz() / 1000.0; }
  // Which CPU this is, as precisely as /proc/cpuinfo tells: model name, vendor, family, model,
  // stepping and vector ISA. Virtual machines name AMD's Zen 3, 4 and 5 alike ("AMD EPYC"), so
  // what is learned about one CPU (cached facts) is keyed by this, never by the name alone.
  std::string identity() const;
};

CpuInfo read_cpu_info();

// Pure parsing, for tests: /proc/cpuinfo and /proc/meminfo text.
CpuInfo parse_cpu_info(const std::string& cpuinfo, const std::string& meminfo, int online_cpus);

}  // namespace mt
