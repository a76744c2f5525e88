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

struct CpuWindow::Reading {
  double wall_s = 0, own_cpu_s = 0;
  ProcStatTicks ticks;
};

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

CpuWindow::CpuWindow() {
  if (const auto r = read()) {
    readable_ = true;
    start_wall_s_ = r->wall_s;
    start_own_cpu_s_ = r->own_cpu_s;
    start_busy_ = r->ticks.busy;
    start_steal_ = r->ticks.steal;
    start_total_ = r->ticks.total;
  }
}

std::optional<CpuWindowUse> CpuWindow::close() const {
  const auto r = readable_ ? read() : std::nullopt;
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (!r || ticks_per_s <= 0 || r->wall_s <= start_wall_s_) return std::nullopt;
  CpuWindowUse use;
  use.wall_s = r->wall_s - start_wall_s_;
  use.cpus = r->ticks.cpus;
  const double busy_s = double(r->ticks.busy - std::min(start_busy_, r->ticks.busy)) / double(ticks_per_s);
  // Ticks are whole 1/100 s per CPU, rusage microseconds: a small negative remainder is rounding.
  use.foreign_cores = std::max(0.0, busy_s - (r->own_cpu_s - start_own_cpu_s_)) / use.wall_s;
  const auto total = r->ticks.total - std::min(start_total_, r->ticks.total);
  if (total > 0) use.steal_pct = double(r->ticks.steal - std::min(start_steal_, r->ticks.steal)) / double(total) * 100;
  return use;
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
