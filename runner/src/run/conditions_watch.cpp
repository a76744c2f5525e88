#include "run/conditions_watch.h"

#include <algorithm>
#include <map>

#include "launch/core_round_trip.h"
#include "stats.h"
#include "store/conditions_rows.h"
#include "store/lease.h"

namespace mt {

ConditionsWatch::ConditionsWatch(double interval_s, const std::string& marked_job, bool time_cores)
    : time_cores_(time_cores),
      round_trip_before_(time_cores ? core_round_trip_ns(allowed_cpus()) : std::nullopt),
      before_(read_snapshot()),
      sampler_(interval_s, {}, marked_job) {
  sampler_.start(before_.t);
}

std::optional<MachineConditions> ConditionsWatch::finish() {
  auto samples = sampler_.stop();
  auto conditions = conditions_between(before_, read_snapshot(), samples, proc_ticks_per_second());
  if (!conditions) return conditions;
  count_marked_processes(*conditions, sampler_.marked_cpu_s());
  conditions->core_round_trip_ns_before = round_trip_before_;
  if (time_cores_) conditions->core_round_trip_ns_after = core_round_trip_ns(allowed_cpus());
  return conditions;
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
  if (outcome.result_json) {
    if (auto here = ranks_on_host(*outcome.result_json, this_host())) {
      conditions.job_ranks_here = here->ranks;
      if (here->cpu_s) count_ranks_started_elsewhere(conditions, *here->cpu_s);
    }
  }
  VerdictInputs in;
  // A job that ran on other hosts only (mtrun on a cluster's login node): this machine's load says
  // nothing about it, so only what its ranks measured themselves is judged.
  const bool job_ran_elsewhere = conditions.job_ranks_here == 0;
  in.conditions = job_ran_elsewhere ? nullptr : &conditions;
  // Each probe against its median over the attempts laid out like this one (this one included).
  auto probe = [&](const char* metric, std::optional<double>& value, std::optional<double>& campaign_median) {
    for (const auto& m : outcome.metrics) {
      if (m.name == metric) value = m.value;
    }
    if (!value) return;
    const std::vector<double> all = campaign_metric_laid_out_alike(db, campaign_id, attempt_id, metric);
    campaign_median = all.empty() ? *value : median(all);
  };
  probe(kCalibrationMetric, in.calibration_gflops, in.campaign_median_calibration);
  conditions.calibration_gflops = in.calibration_gflops;
  probe(kMemoryBandwidthMetric, in.memory_gbps, in.campaign_median_memory_gbps);
  probe(kLatencyMetric, in.latency_us, in.campaign_median_latency_us);
  // mtrun's own reading of its host's cores, judged where the job ran there: the larger of the
  // attempt's two against the median of the smaller ones, which a campaign that starts while the
  // cores are far apart does not take for the usual.
  const auto& before = conditions.core_round_trip_ns_before;
  const auto& after = conditions.core_round_trip_ns_after;
  if (!job_ran_elsewhere && (before || after)) {
    // Either reading stands for both where only one was taken (value_or would read the empty one).
    const double first = before ? *before : *after, second = after ? *after : *before;
    in.core_round_trip_ns = std::max(first, second);
    std::vector<double> usual = campaign_usual_core_round_trips(db, campaign_id, conditions.cpus);
    usual.push_back(std::min(first, second));  // this attempt's conditions are recorded below
    in.campaign_median_core_round_trip_ns = median(usual);
  }
  in.oversubscribed = outcome.result_json && job_oversubscribed(*outcome.result_json, conditions.cpus);
  in.steps = measured_steps(outcome);
  if (outcome.result_json)
    in.other_machines = other_machines_load(*outcome.result_json, this_kernel_boot_id(), this_host());
  Verdict verdict = judge_attempt(in, thresholds);
  record_conditions(db, attempt_id, conditions, verdict);
  return verdict;
}

}  // namespace mt
