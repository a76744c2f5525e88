#include "launch/proc_readings.h"

#include <sstream>
#include <string>

namespace mt {

std::optional<ProcStat> parse_proc_stat(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  ProcStat stat;
  bool have_cpu = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "cpu") {
      CpuTicks& t = stat.cpu;
      fields >> t.user >> t.nice >> t.system >> t.idle >> t.iowait >> t.irq >> t.softirq;
      if (!fields) return std::nullopt;
      if (!(fields >> t.steal)) t.steal = 0;  // kernels before 2.6.11 have no steal column
      have_cpu = true;
    } else if (key.size() > 3 && key.compare(0, 3, "cpu") == 0) {
      ++stat.cpus;
    } else if (key == "ctxt") {
      std::uint64_t n = 0;
      if (fields >> n) stat.context_switches = n;
    }
  }
  if (!have_cpu || stat.cpus == 0) return std::nullopt;
  return stat;
}

std::optional<double> parse_load1(const std::string& text) {
  std::istringstream in(text);
  double load = 0;
  if (!(in >> load)) return std::nullopt;
  return load;
}

std::optional<double> parse_pressure_some_us(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 5, "some ") != 0) continue;
    const auto at = line.find("total=");
    if (at == std::string::npos) return std::nullopt;
    std::istringstream value(line.substr(at + 6));
    double us = 0;
    if (value >> us) return us;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> parse_mem_available_mib(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 13, "MemAvailable:") != 0) continue;
    std::istringstream value(line.substr(13));
    double kib = 0;
    if (value >> kib) return kib / 1024.0;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> parse_cpuinfo_mhz(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  double sum = 0;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.compare(0, 7, "cpu MHz") != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream value(line.substr(colon + 1));
    double mhz = 0;
    if (value >> mhz) sum += mhz, ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::optional<PidStat> parse_pid_stat(const std::string& text) {
  // "PID (COMM) STATE PPID ..." where COMM may hold spaces and parentheses: fields follow the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string state;
  long long ppid = 0;
  if (!(fields >> state >> ppid)) return std::nullopt;
  std::uint64_t value = 0, cpu = 0;
  for (int field = 5; field <= 17; ++field) {  // pgrp … cstime; 14-17 are the CPU times
    if (!(fields >> value)) return std::nullopt;
    if (field >= 14) cpu += value;
  }
  PidStat stat{int(ppid), cpu};
  long long signed_field = 0;  // priority, nice, threads, itrealvalue: then starttime
  if (!(fields >> signed_field >> signed_field >> signed_field >> signed_field >> value)) return stat;
  stat.start_ticks = value;
  std::string skipped;  // fields 23 (vsize) to 49; env_start and env_end are 50 and 51
  for (int field = 23; field < 50 && fields >> skipped; ++field) {}
  std::uint64_t env_start = 0, env_end = 0;
  if (fields >> env_start >> env_end) stat.env_start = env_start, stat.env_end = env_end;
  return stat;
}

}  // namespace mt
