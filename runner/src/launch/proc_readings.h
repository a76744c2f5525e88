#pragma once
// Parsers for the kernel's text files that say how busy the machine is (/proc/stat, loadavg,
// pressure, meminfo, cpuinfo, cpufreq). Pure functions over the text, so they are tested on canned
// files; a file that is absent or unreadable is simply not read (nullopt).
#include <cstdint>
#include <optional>
#include <string>

namespace mt {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ) summed over every CPU.
struct CpuTicks {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // Time some process (or the kernel on its behalf) ran. Guest time is already inside user and
  // nice; steal is time this machine did not get, so it is not anyone's work here.
  std::uint64_t busy() const { return user + nice + system + irq + softirq; }
  std::uint64_t total() const { return busy() + idle + iowait + steal; }
};

struct ProcStat {
  CpuTicks cpu;
  int cpus = 0;                                   // "cpuN" lines
  std::optional<std::uint64_t> context_switches;  // "ctxt", since boot
};

std::optional<ProcStat> parse_proc_stat(const std::string& text);
// The 1-minute load average (first field of /proc/loadavg).
std::optional<double> parse_load1(const std::string& text);
// The "some" line's total= of a /proc/pressure file: microseconds some task was stalled, since boot.
std::optional<double> parse_pressure_some_us(const std::string& text);
// MemAvailable of /proc/meminfo, in MiB.
std::optional<double> parse_mem_available_mib(const std::string& text);
// Mean of the "cpu MHz" lines of /proc/cpuinfo.
std::optional<double> parse_cpuinfo_mhz(const std::string& text);

// A process's /proc/PID/stat: its parent, and the CPU it and its waited-for children used, in
// clock ticks (utime + stime + cutime + cstime).
struct PidStat {
  int ppid = 0;
  std::uint64_t cpu_ticks = 0;
  std::uint64_t start_ticks = 0;  // since boot: with the PID, tells a process from a later one of that PID
  // Where its environment lies in its memory (0 when the reader may not see it): exec moves it, so
  // a process seen again after it exec'd another program tells by these that its environment is new.
  std::uint64_t env_start = 0, env_end = 0;
};
std::optional<PidStat> parse_pid_stat(const std::string& text);

}  // namespace mt
