#include "run/conditions_watch.h"

#include <algorithm>
#include <map>

#include "stats.h"
#include "store/conditions_rows.h"

namespace mt {

ConditionsWatch::ConditionsWatch(double interval_s) : before_(read_snapshot()), sampler_(interval_s) {
  sampler_.start(before_.t);
}

std::optional<MachineConditions> ConditionsWatch::finish() {
  auto samples = sampler_.stop();
  return conditions_between(before_, read_snapshot(), samples, proc_ticks_per_second());
}

StepTimes measured_steps(const AttemptOutcome& outcome) {
  std::map<int, double> slowest;  // step → the slowest rank's time
  for (const auto& s : outcome.steps) {
    if (s.name != "step_time_ms") continue;
    auto [it, fresh] = slowest.try_emplace(s.step, s.value);
    if (!fresh) it->second = std::max(it->second, s.value);
  }
  int measured = int(slowest.size());
  for (const auto& m : outcome.metrics) {
    if (m.name == "steps") measured = std::min(measured, int(m.value));
  }
  StepTimes out;
  int skip = int(slowest.size()) - std::max(0, measured);  // the series start with the warmup steps
  for (const auto& [step, ms] : slowest) {
    if (skip-- > 0) continue;
    out.step.push_back(step);
    out.ms.push_back(ms);
  }
  return out;
}

Verdict assess_attempt(Database& db, const std::string& campaign_id, std::int64_t attempt_id,
                       MachineConditions conditions, const AttemptOutcome& outcome,
                       const ConditionsThresholds& thresholds) {
  for (const auto& m : outcome.metrics) {
    if (m.name == kCalibrationMetric) conditions.calibration_gflops = m.value;
  }
  VerdictInputs in;
  in.conditions = &conditions;
  in.calibration_gflops = conditions.calibration_gflops;
  if (conditions.calibration_gflops) {
    std::vector<double> all = campaign_calibrations(db, campaign_id);
    all.push_back(*conditions.calibration_gflops);
    in.campaign_median_calibration = median(all);
  }
  auto probe = [&](const char* metric, std::optional<double>& value, std::optional<double>& campaign_median) {
    for (const auto& m : outcome.metrics) {
      if (m.name == metric) value = m.value;
    }
    if (!value) return;
    const std::vector<double> all = campaign_metric_at_same_ranks(db, campaign_id, attempt_id, metric);
    if (!all.empty()) campaign_median = median(all);
  };
  probe(kMemoryBandwidthMetric, in.memory_gbps, in.campaign_median_memory_gbps);
  probe(kLatencyMetric, in.latency_us, in.campaign_median_latency_us);
  in.steps = measured_steps(outcome);
  Verdict verdict = judge_attempt(in, thresholds);
  record_conditions(db, attempt_id, conditions, verdict);
  return verdict;
}

}  // namespace mt
