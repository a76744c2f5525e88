#include "core/env/cpu_window.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace mt {

std::optional<ProcStatTicks> parse_proc_stat_ticks(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::optional<ProcStatTicks> out;
  int cpus = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream fields(line.substr(4));
      unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
      if (!(fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) return std::nullopt;
      fields >> steal;  // absent before Linux 2.6.11
      // Guest time is already inside user and nice; steal is time nobody here ran.
      ProcStatTicks t;
      t.busy = user + nice + system + irq + softirq;
      t.steal = steal;
      t.total = t.busy + idle + iowait + steal;
      out = t;
    } else if (line.rfind("cpu", 0) == 0 && line.size() > 3 && std::isdigit(static_cast<unsigned char>(line[3]))) {
      ++cpus;
    }
  }
  if (out) out->cpus = cpus;
  return out;
}

std::optional<CpuWindow::Reading> CpuWindow::read() {
  std::ifstream file("/proc/stat");
  std::stringstream text;
  text << file.rdbuf();
  const auto ticks = parse_proc_stat_ticks(text.str());
  if (!ticks) return std::nullopt;
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  Reading r;
  r.ticks = *ticks;
  r.own_cpu_s =
      double(self.ru_utime.tv_sec + self.ru_stime.tv_sec) + double(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return r;
}

CpuWindow::CpuWindow() : start_(read()) {}

std::optional<CpuWindowUse> CpuWindow::close() const {
  const auto end = start_ ? read() : std::nullopt;
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (!end || ticks_per_s <= 0 || end->wall_s <= start_->wall_s) return std::nullopt;
  const ProcStatTicks &a = start_->ticks, &b = end->ticks;
  CpuWindowUse use;
  use.wall_s = end->wall_s - start_->wall_s;
  use.cpus = b.cpus;
  use.busy_cpu_s = double(b.busy - std::min(a.busy, b.busy)) / double(ticks_per_s);
  use.own_cpu_s = end->own_cpu_s - start_->own_cpu_s;
  // Ticks are whole 1/100 s per CPU, rusage microseconds: a small negative remainder is rounding.
  use.foreign_cores = std::max(0.0, use.busy_cpu_s - use.own_cpu_s) / use.wall_s;
  const auto total = b.total - std::min(a.total, b.total);
  if (total > 0) use.steal_pct = double(b.steal - std::min(a.steal, b.steal)) / double(total) * 100;
  return use;
}

std::string kernel_boot_id() {
  std::ifstream file("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(file, id);
  return id;
}

std::optional<std::string> busy_machine_reason(const CpuWindowUse& use, int threads) {
  const double free_cores = std::max(0, use.cpus - threads);
  if (use.foreign_cores > free_cores + 0.2)
    return fmt::format("other processes kept {:.2f} of {} CPUs busy while {} thread(s) measured", use.foreign_cores,
                       use.cpus, threads);
  if (use.steal_pct > 5) return fmt::format("the hypervisor took {:.1f} % of the CPU time", use.steal_pct);
  return std::nullopt;
}

}  // namespace mt
