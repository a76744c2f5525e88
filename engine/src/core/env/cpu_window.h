// Whether this process had its cores to itself while it measured something worth keeping (the
// GEMM backends' speeds, kept for every later launch): a measurement taken while another job ran
// is slow for good, and a choice made from it can be wrong for good. Torch-free.
#pragma once

#include <optional>
#include <string>

namespace mt {

// The aggregate "cpu" line of /proc/stat as busy, steal and total ticks, and the count of "cpuN"
// lines (exposed for tests; nullopt on text it cannot read).
struct ProcStatTicks {
  unsigned long long busy = 0, steal = 0, total = 0;
  int cpus = 0;
};
std::optional<ProcStatTicks> parse_proc_stat_ticks(const std::string& text);

// What the machine did over a window, from /proc/stat and this process's own CPU time.
struct CpuWindowUse {
  double wall_s = 0;
  int cpus = 0;              // logical CPUs the kernel counts
  double busy_cpu_s = 0;     // every process's CPU time on the machine
  double own_cpu_s = 0;      // this process's
  double foreign_cores = 0;  // other processes' CPU time ÷ wall: how many cores they kept busy
  double steal_pct = 0;      // share of the machine's time its hypervisor gave elsewhere
};

// Opened where the measurement starts; `close` reads the use since. Nothing is known (nullopt)
// where /proc/stat cannot be read.
class CpuWindow {
 public:
  CpuWindow();
  std::optional<CpuWindowUse> close() const;

 private:
  struct Reading {
    double wall_s = 0, own_cpu_s = 0;
    ProcStatTicks ticks;
  };
  static std::optional<Reading> read();
  std::optional<Reading> start_;
};

// The running kernel's boot id (/proc/sys/kernel/random/boot_id), "" where unreadable: hosts that
// share it (containers, network namespaces of one machine) share one /proc/stat, so their load is
// one machine's.
std::string kernel_boot_id();

// Why `use` leaves a measurement on `threads` threads untrustworthy, or nothing when it does not:
// other processes may use the cores this one left free (another rank of the job waiting for it,
// say) plus a fifth of a core, and the hypervisor may take up to 5 % of the time.
std::optional<std::string> busy_machine_reason(const CpuWindowUse& use, int threads);

}  // namespace mt
