#pragma once
// The rules an experiment sets for judging its measurements (docs/measurement.md): when an attempt's
// machine counts as disturbed, and how many repeats a configuration gets. Plain values, shared by
// the loader, the runner and reports.
#include <optional>
#include <string>

namespace mt {

// An attempt is disturbed when any of these is exceeded (each documented in docs/measurement.md).
struct ConditionsThresholds {
  double max_foreign_cpu_pct = 20;       // CPU other processes used during the job, % of one core
  double max_steal_pct = 5;              // time the hypervisor took, % of all CPUs' time
  double max_calibration_drop_pct = 15;  // SGEMM calibration below the campaign's median, %
  // The engine's memory copy bandwidth below, and its all-reduce latency floor above, the median of
  // the campaign's attempts at the same rank count, %.
  double max_memory_bandwidth_drop_pct = 20;
  double max_latency_rise_pct = 50;
  // mtrun's core round trip around the job above the campaign's usual one, %. Some VMs' cores
  // also read about half their usual figure at moments, which the usual may settle on: above 2×.
  double max_core_round_trip_rise_pct = 200;
  double max_cpu_pressure_pct = 10;  // /proc/pressure/cpu "some" beyond the job's own, % of the window
  double bimodal_step_ratio = 1.5;   // per-step times split into two levels this far apart
  double bimodal_min_gap_ms = 10;    // … and at least this many ms apart (a few scheduler ticks)
  double sample_interval_s = 0.5;    // how often the sampler reads the machine during a job
  bool keep_disturbed = false;       // reports average disturbed attempts in anyway
  // Before each trial (when trials run one at a time): first wait this long with nothing of ours
  // running, then up to this long for a quiet machine. The experiment's own need, so that `mtrun
  // run FILE` measures as its committed report did; `run --settle` / `--wait-quiet` override them.
  double settle_s = 0;
  double wait_quiet_s = 0;
};

// The most a trial may be made to settle, in seconds (`settle_s`, `run --settle`).
inline constexpr double kMostSettleSeconds = 3600;
// The longest a trial may wait for a quiet machine, in seconds (`wait_quiet_s`, `run --wait-quiet`): a week.
inline constexpr double kMostWaitQuietSeconds = 7 * 24 * 3600;

// `repeat: N` is min = max = N; `repeat: {min, max, target_ci_pct}` keeps adding rounds after `min`
// while the primary metric's 95 % confidence interval is wider than ±target_ci_pct % of its mean.
struct RepeatPolicy {
  int min = 1;
  int max = 1;
  std::optional<double> target_ci_pct;
  bool adaptive() const { return target_ci_pct.has_value() && max > min; }
};

// The thresholds as a JSON object (stored with the campaign) and back; missing keys keep defaults.
std::string thresholds_to_json(const ConditionsThresholds& t);
ConditionsThresholds thresholds_from_json(const std::string& json);

}  // namespace mt
