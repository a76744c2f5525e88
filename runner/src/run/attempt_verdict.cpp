#include "run/attempt_verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core_use.h"
#include "json_fields.h"
#include "stats.h"

namespace mt {
namespace {

// /proc/stat counts whole 10 ms ticks (USER_HZ, 100 on Linux) per CPU, at both ends of the
// attempt: over a short attempt that rounding alone reads as other processes' work (a 15 ms
// `echo` trial on 2 CPUs can show 150 % of a core), and steal, a share of each CPU's time, as
// several per cent (tick_rounding_pct(1, wall_s)). Only what exceeds it counts.
double tick_rounding_pct(int cpus, double wall_s) {
  constexpr double kTickS = 0.01;
  return wall_s > 0 ? 2.0 * std::max(1, cpus) * kTickS / wall_s * 100.0 : 0.0;
}

void check_cpu(const MachineConditions& c, const ConditionsThresholds& t, Verdict& v) {
  if (c.foreign_cpu_pct - tick_rounding_pct(c.cpus, c.wall_s) > t.max_foreign_cpu_pct) {
    v.reasons.push_back(fmt::format("other processes used {:.0f} % of a core", c.foreign_cpu_pct));
  }
  if (c.steal_pct && *c.steal_pct - tick_rounding_pct(1, c.wall_s) > t.max_steal_pct) {
    v.reasons.push_back(fmt::format("the hypervisor took {:.0f} % of the CPUs' time (steal)", *c.steal_pct));
  }
  // Pressure counts the job's own tasks waiting too: over a sub-second attempt its start-up alone
  // (launcher, ranks, mtrun reaping them) reads as 10-20 % (seen on a 15 ms `echo` trial), and a
  // job that keeps every CPU busy waits on itself (its ranks, their thread pools and MPI's progress
  // threads: 10-17 % for 2-rank training on 2 idle vCPUs). So it is judged only over a second or
  // more and where the job left at least one CPU's worth idle; others' work is foreign CPU's to show.
  constexpr double kShortestPressureWindowS = 1.0;
  const bool job_fills_cpus = c.wall_s > 0 && c.job_cpu_s / c.wall_s > c.cpus - 1.0;
  if (c.cpu_pressure_pct && c.wall_s >= kShortestPressureWindowS && !job_fills_cpus &&
      *c.cpu_pressure_pct > t.max_cpu_pressure_pct) {
    v.reasons.push_back(fmt::format("CPU pressure: tasks waited for a CPU {:.0f} % of the time", *c.cpu_pressure_pct));
  }
}

// How far a probe reads below (or above) its reference, in % of it; none where either is missing.
std::optional<double> percent_below(const std::optional<double>& value, const std::optional<double>& reference) {
  if (!value || !reference || *reference <= 0) return std::nullopt;
  return (1 - *value / *reference) * 100.0;
}
std::optional<double> percent_above(const std::optional<double>& value, const std::optional<double>& reference) {
  if (!value || !reference || *reference <= 0) return std::nullopt;
  return (*value / *reference - 1) * 100.0;
}

}  // namespace

bool job_oversubscribed(const std::string& result_json, int local_cpus) {
  const auto result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  const auto most = most_ranks_on_one_host(result);
  if (!most) return false;
  CoreUse use = stated_core_use(result, object_field(result, "environment"), *most);
  if (!use.cores && local_cpus > 0) use.cores = local_cpus;
  return use.oversubscribed();
}

std::optional<RanksOnHost> ranks_on_host(const std::string& result_json, const std::string& host) {
  const auto result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("hosts") || !result["hosts"].is_array()) return std::nullopt;
  const auto& hosts = result["hosts"];
  RanksOnHost here;
  for (const auto& name : hosts) {
    if (!name.is_string()) return std::nullopt;
    if (name.get<std::string>() == host) ++here.ranks;
  }
  const nlohmann::json seconds = result.contains("rank_cpu_s") ? result["rank_cpu_s"] : nlohmann::json();
  if (!seconds.is_array() || seconds.size() != hosts.size()) return here;
  double sum = 0;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (!seconds[r].is_number() || seconds[r].get<double>() < 0) return here;
    if (hosts[r].get<std::string>() == host) sum += seconds[r].get<double>();
  }
  here.cpu_s = sum;
  return here;
}

std::optional<std::string> bimodal_steps(const StepTimes& steps, double ratio, double min_gap_ms) {
  const std::size_t n = steps.ms.size();
  const std::size_t least = std::max<std::size_t>(2, (n + 9) / 10);
  if (n < 2 * least) return std::nullopt;
  std::vector<double> sorted = steps.ms;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() <= 0) return std::nullopt;
  // The widest ratio between neighbours, where both sides keep enough steps to be a level.
  std::size_t cut = 0;
  double widest = 1;
  for (std::size_t i = least; i + least <= n; ++i) {
    const double gap = sorted[i] / sorted[i - 1];
    if (gap > widest) widest = gap, cut = i;
  }
  if (cut == 0) return std::nullopt;
  const double low = median(std::vector<double>(sorted.begin(), sorted.begin() + std::ptrdiff_t(cut)));
  const double high = median(std::vector<double>(sorted.begin() + std::ptrdiff_t(cut), sorted.end()));
  if (high < low * ratio || high - low < min_gap_ms) return std::nullopt;
  // Where the slow level starts: the first step at or above the cut.
  std::size_t first = 0;
  while (first < n && steps.ms[first] < sorted[cut]) ++first;
  const int at = first < steps.step.size() ? steps.step[first] : int(first);
  return fmt::format("per-step times bimodal: {:.0f} → {:.0f} ms at step {}", low, high, at);
}

Verdict judge_attempt(const VerdictInputs& in, const ConditionsThresholds& t) {
  Verdict v;
  if (in.conditions) check_cpu(*in.conditions, t, v);
  for (const HostLoad& machine : in.other_machines) {
    if (machine.foreign_cpu_pct - tick_rounding_pct(machine.cpus, machine.wall_s) > t.max_foreign_cpu_pct) {
      v.reasons.push_back(
          fmt::format("host {}: other processes used {:.0f} % of a core", machine.hosts, machine.foreign_cpu_pct));
    }
    if (machine.steal_pct - tick_rounding_pct(1, machine.wall_s) > t.max_steal_pct) {
      v.reasons.push_back(fmt::format("host {}: the hypervisor took {:.0f} % of the CPUs' time (steal)", machine.hosts,
                                      machine.steal_pct));
    }
  }
  if (const auto drop = percent_below(in.calibration_gflops, in.campaign_median_calibration);
      drop && *drop > t.max_calibration_drop_pct) {
    v.reasons.push_back(fmt::format("calibration {:.0f} % below this campaign's median", *drop));
  }
  if (const auto drop = percent_below(in.memory_gbps, in.campaign_median_memory_gbps);
      drop && *drop > t.max_memory_bandwidth_drop_pct) {
    v.reasons.push_back(
        fmt::format("memory copy bandwidth {:.0f} % below this campaign's median ({:.1f} against "
                    "{:.1f} GB/s per thread)",
                    *drop, *in.memory_gbps, *in.campaign_median_memory_gbps));
  }
  if (const auto rise = percent_above(in.latency_us, in.campaign_median_latency_us);
      rise && !in.oversubscribed && *rise > t.max_latency_rise_pct) {
    v.reasons.push_back(
        fmt::format("all-reduce latency floor {:.0f} % above this campaign's median ({:.1f} against "
                    "{:.1f} µs)",
                    *rise, *in.latency_us, *in.campaign_median_latency_us));
  }
  if (const auto rise = percent_above(in.core_round_trip_ns, in.campaign_median_core_round_trip_ns);
      rise && *rise > t.max_core_round_trip_rise_pct) {
    v.reasons.push_back(
        fmt::format("core-to-core round trip {:.0f} % above this campaign's usual ({:.0f} against "
                    "{:.0f} ns)",
                    *rise, *in.core_round_trip_ns, *in.campaign_median_core_round_trip_ns));
  }
  if (auto bimodal = bimodal_steps(in.steps, t.bimodal_step_ratio, t.bimodal_min_gap_ms)) v.reasons.push_back(*bimodal);
  v.disturbed = !v.reasons.empty();
  return v;
}

Verdict judge_idle_machine(const MachineConditions& c, const ConditionsThresholds& t) {
  Verdict v;
  check_cpu(c, t, v);
  for (auto& r : v.reasons) r += fmt::format(" over {:.1f} s", c.wall_s);
  v.disturbed = !v.reasons.empty();
  return v;
}

}  // namespace mt
