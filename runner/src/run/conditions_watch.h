#pragma once
// The conditions of one attempt, from the moment its job is launched to the end of its wait: a
// snapshot before, samples during, a snapshot after; then the verdict, recorded with the attempt.
#include <cstdint>
#include <optional>
#include <string>

#include "experiment/measurement_rules.h"
#include "launch/machine_sampler.h"
#include "run/attempt_verdict.h"
#include "store/sqlite_db.h"
#include "store/store.h"

namespace mt {

class ConditionsWatch {
 public:
  // `marked_job`: the job whose processes carry its mark (a Slurm job's), or "". `time_cores`: read
  // the round trip between this machine's CPUs before the job and after it (a few ms each, every
  // CPU it uses busy): only where no other job runs beside this one.
  explicit ConditionsWatch(double interval_s, const std::string& marked_job = "", bool time_cores = false);
  // Stops sampling; nullopt when /proc/stat could not be read.
  std::optional<MachineConditions> finish();

 private:
  bool time_cores_;
  std::optional<double> round_trip_before_;  // read before the snapshot, so outside the window
  MachineSnapshot before_;
  MachineSampler sampler_;
};

// The slowest rank's time per measured step (warmup dropped) from a result's per-step series.
StepTimes measured_steps(const AttemptOutcome& outcome);

// Judges the attempt (its calibration against the campaign's median so far, its per-step times) and
// records conditions and verdict. Returns the verdict.
Verdict assess_attempt(Database& db, const std::string& campaign_id, std::int64_t attempt_id,
                       MachineConditions conditions, const AttemptOutcome& outcome,
                       const ConditionsThresholds& thresholds);

// "metric name" → the engine's calibration metric, as flattened into metrics.
inline constexpr const char* kCalibrationMetric = "environment.blas_gflops_per_thread";
inline constexpr const char* kMemoryBandwidthMetric = "environment.memory_copy_gbps_per_thread";
inline constexpr const char* kLatencyMetric = "calibration.allreduce_8_bytes_us";

}  // namespace mt
