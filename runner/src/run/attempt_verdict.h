#pragma once
// Whether an attempt's timing can be trusted: `quiet`, or `disturbed` with the reasons in words,
// judged against the experiment's thresholds (docs/measurement.md, "Conditions").
#include <optional>
#include <string>
#include <vector>

#include "experiment/measurement_rules.h"
#include "launch/machine_conditions.h"
#include "run/host_loads.h"

namespace mt {

struct Verdict {
  bool disturbed = false;
  std::vector<std::string> reasons;  // empty when quiet
  const char* name() const { return disturbed ? "disturbed" : "quiet"; }
};

// Per-step times of one attempt in step order (the slowest rank's, warmup dropped) and the step
// number of each.
struct StepTimes {
  std::vector<double> ms;
  std::vector<int> step;
};

struct VerdictInputs {
  const MachineConditions* conditions = nullptr;  // null: not measured
  std::optional<double> calibration_gflops;
  // The engine's probes, each against its median over the campaign's attempts laid out alike (as
  // many ranks and threads per rank; this one included).
  std::optional<double> campaign_median_calibration;
  std::optional<double> memory_gbps, campaign_median_memory_gbps;  // memory copy bandwidth per thread
  std::optional<double> latency_us, campaign_median_latency_us;    // 8-byte all-reduce (multi-rank jobs)
  // mtrun's: the larger core round trip of the two it read around the job on its host
  // (launch/core_round_trip.h), against the campaign's usual one: the median, over its attempts on
  // as many CPUs, of the smaller of their two.
  std::optional<double> core_round_trip_ns, campaign_median_core_round_trip_ns;
  // The job ran more threads on a host than it has CPUs: its ranks took turns, so an 8-byte
  // all-reduce waited on the scheduler (56-57 % above the median at 4 ranks on 2 idle vCPUs) and
  // the latency floor is not judged.
  bool oversubscribed = false;
  StepTimes steps;
  // The machines the job ran on besides mtrun's, as its ranks saw them: judged by the same CPU rules.
  std::vector<HostLoad> other_machines;
};

Verdict judge_attempt(const VerdictInputs& inputs, const ConditionsThresholds& thresholds);

// Whether a job's result says it ran more threads on one host than that host has CPUs: the most
// ranks on one host (`hosts`, one name per rank) × threads per rank (`threads_per_rank`, else 1)
// against `environment.cpu_cores`, else `local_cpus`. False when the result does not say.
bool job_oversubscribed(const std::string& result_json, int local_cpus);

// The job's ranks on one host, from its result's `hosts` (one name per rank).
struct RanksOnHost {
  int ranks = 0;
  // The CPU time they report for themselves (`rank_cpu_s`, in the order of `hosts`); nullopt where
  // the result does not give one for every rank.
  std::optional<double> cpu_s;
};
// Nullopt where the result names no hosts.
std::optional<RanksOnHost> ranks_on_host(const std::string& result_json, const std::string& host);

// "per-step times bimodal: 155 → 516 ms at step 9" when the sorted times split, at their widest
// ratio gap, into two levels at least `ratio` and `min_gap_ms` apart, each holding at least two
// steps and a tenth of them; nullopt otherwise. The gap keeps millisecond steps, which a scheduler
// tick alone doubles, from reading as two levels.
std::optional<std::string> bimodal_steps(const StepTimes& steps, double ratio, double min_gap_ms = 0);

// The judgement of a machine measured with nothing of ours running (doctor, the start of `run`):
// the same CPU rules, saying over how long.
Verdict judge_idle_machine(const MachineConditions& conditions, const ConditionsThresholds& thresholds);

}  // namespace mt
