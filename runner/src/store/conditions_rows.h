#pragma once
// The attempt_conditions table (schema version 6): the machine during each attempt and its verdict,
// written once the attempt has finished, read by the runner (the probes' campaign medians, adaptive repeats)
// and by reports.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launch/machine_conditions.h"
#include "run/attempt_verdict.h"
#include "store/sqlite_db.h"

namespace mt {

void record_conditions(Database& db, std::int64_t attempt_id, const MachineConditions& conditions,
                       const Verdict& verdict);

// The values of `metric` in the campaign's attempts laid out like `attempt_id` (that attempt
// included, once its metrics are stored) by the same program: as many ranks and as many threads
// per rank, and the engine (any engine workload) or the same `command` study. The engine's probes
// measure every rank at once with its threads, so only such attempts are comparable: a campaign of
// 1 and 2 ranks has two calibration levels, neither of them disturbed. A peer's probe goes through
// its own framework: at 1 rank × 2 threads PyTorch's read 35 % below the engine's in one campaign.
std::vector<double> campaign_metric_laid_out_alike(Database& db, const std::string& campaign_id,
                                                   std::int64_t attempt_id, const std::string& metric);

// The smaller of the two core round trips (before and after the job) of each of the campaign's
// attempts that read one on a host with `cpus` CPUs, in attempt order: what the cores usually take,
// as a state of far-apart cores that lasts seconds covers one reading of an attempt more often than
// both.
std::vector<double> campaign_usual_core_round_trips(Database& db, const std::string& campaign_id, int cpus);
// Their median, once three attempts have read one: what a look before the next trial waits for the
// cores to come back to (run/quiet_machine.h).
std::optional<double> campaign_usual_core_round_trip(Database& db, const std::string& campaign_id, int cpus);
// The campaign with a usual core round trip on `cpus` CPUs whose latest such attempt is the latest
// of all: the one to judge this machine's cores by before a campaign starts (run/cores_now.h).
// Nullopt where none has one, or the database predates the readings.
std::optional<std::string> latest_campaign_reading_cores(Database& db, int cpus);

struct StoredVerdict {
  std::string verdict;  // "quiet" or "disturbed"
  std::vector<std::string> reasons;
  std::optional<double> calibration_gflops;
  std::optional<int> job_ranks_here;  // see MachineConditions; never before schema version 12
};

// The schema version that records how many of an attempt's ranks ran on mtrun's host.
inline constexpr int kJobRanksHereSchemaVersion = 12;
// The schema version that records mtrun's core round trips around each attempt.
inline constexpr int kCoreRoundTripSchemaVersion = 14;
// The verdict of an attempt, if one was recorded (never before schema version 6).
std::optional<StoredVerdict> read_verdict(Database& db, std::int64_t attempt_id);

}  // namespace mt
