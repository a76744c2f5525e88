#include "launch/machine_conditions.h"

#include <algorithm>

namespace mt {
namespace {

void widen(std::optional<double>& low, std::optional<double>& high, const std::optional<double>& v) {
  if (!v) return;
  low = low ? std::min(*low, *v) : *v;
  high = high ? std::max(*high, *v) : *v;
}

// Share of the window some task was stalled, from two "some total" readings in microseconds.
std::optional<double> stall_pct(const std::optional<double>& a, const std::optional<double>& b, double wall_s) {
  if (!a || !b || wall_s <= 0 || *b < *a) return std::nullopt;
  return (*b - *a) / 1e6 / wall_s * 100.0;
}

// /proc/stat counts whole ticks, getrusage nanoseconds: a few ticks' difference either way is
// rounding, so a negative remainder means "none".
double foreign_pct(const MachineConditions& c) {
  const double foreign_s = std::max(0.0, c.busy_cpu_s - c.job_cpu_s - c.runner_cpu_s);
  return c.wall_s > 0 ? foreign_s / c.wall_s * 100.0 : 0;
}

}  // namespace

void count_marked_processes(MachineConditions& c, double marked_cpu_s) {
  if (marked_cpu_s <= 0) return;
  c.job_cpu_s += marked_cpu_s;
  c.foreign_cpu_pct = foreign_pct(c);
}

void count_ranks_started_elsewhere(MachineConditions& c, double ranks_cpu_s) {
  if (ranks_cpu_s <= c.job_cpu_s) return;
  c.job_cpu_s = ranks_cpu_s;
  c.foreign_cpu_pct = foreign_pct(c);
}

std::optional<MachineConditions> conditions_between(const MachineSnapshot& before, const MachineSnapshot& after,
                                                    const std::vector<MachineSample>& samples, double ticks_per_s) {
  if (!before.stat || !after.stat || ticks_per_s <= 0) return std::nullopt;
  MachineConditions c;
  c.wall_s = std::max(0.0, after.t - before.t);
  c.cpus = after.stat->cpus;
  const CpuTicks& a = before.stat->cpu;
  const CpuTicks& b = after.stat->cpu;
  c.busy_cpu_s = double(b.busy() - std::min(a.busy(), b.busy())) / ticks_per_s;
  // Everything mtrun started counts as the job's: the trial's own processes, and those of trials
  // in flight beside it (parallel:), which run apart by construction and are not a neighbour's load.
  c.job_cpu_s =
      std::max(0.0, after.children_cpu_s + after.descendants_cpu_s - before.children_cpu_s - before.descendants_cpu_s);
  c.runner_cpu_s = std::max(0.0, after.self_cpu_s - before.self_cpu_s);
  c.foreign_cpu_pct = foreign_pct(c);
  const std::uint64_t total = b.total() - std::min(a.total(), b.total());
  if (total > 0) c.steal_pct = double(b.steal - std::min(a.steal, b.steal)) / double(total) * 100.0;
  if (before.stat->context_switches && after.stat->context_switches) {
    c.context_switches =
        double(*after.stat->context_switches - std::min(*before.stat->context_switches, *after.stat->context_switches));
  }
  c.load1_before = before.load1;
  c.load1_after = after.load1;
  std::optional<double> load_low, mem_high;
  widen(load_low, c.load1_max, before.load1);
  widen(load_low, c.load1_max, after.load1);
  widen(c.cpu_mhz_min, c.cpu_mhz_max, before.cpu_mhz);
  widen(c.cpu_mhz_min, c.cpu_mhz_max, after.cpu_mhz);
  widen(c.mem_available_mib_min, mem_high, before.mem_available_mib);
  widen(c.mem_available_mib_min, mem_high, after.mem_available_mib);
  for (const auto& s : samples) {
    widen(load_low, c.load1_max, s.load1);
    widen(c.cpu_mhz_min, c.cpu_mhz_max, s.cpu_mhz);
    widen(c.mem_available_mib_min, mem_high, s.mem_available_mib);
  }
  c.cpu_pressure_pct = stall_pct(before.cpu_pressure_us, after.cpu_pressure_us, c.wall_s);
  c.memory_pressure_pct = stall_pct(before.memory_pressure_us, after.memory_pressure_us, c.wall_s);
  c.samples = samples;
  return c;
}

}  // namespace mt
