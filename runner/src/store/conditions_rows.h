#pragma once
// The attempt_conditions table (schema version 6): the machine during each attempt and its verdict,
// written once the attempt has finished, read by the runner (calibration median, adaptive repeats)
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

// Calibrations recorded for the campaign's attempts (at most one per attempt), oldest first.
std::vector<double> campaign_calibrations(Database& db, const std::string& campaign_id);

// The values of `metric` in the campaign's attempts whose trial has as many ranks as the trial of
// `attempt_id` (that attempt included, once its metrics are stored).
std::vector<double> campaign_metric_at_same_ranks(Database& db, const std::string& campaign_id, std::int64_t attempt_id,
                                                  const std::string& metric);

struct StoredVerdict {
  std::string verdict;  // "quiet" or "disturbed"
  std::vector<std::string> reasons;
  std::optional<double> calibration_gflops;
};
// The verdict of an attempt, if one was recorded (never before schema version 6).
std::optional<StoredVerdict> read_verdict(Database& db, std::int64_t attempt_id);

}  // namespace mt
