#pragma once
// What a report says about how its numbers were taken (docs/measurement.md): the order the trials
// ran in, the attempts run on a disturbed machine (named, with their reasons, left out of means
// unless kept), configurations with nothing but disturbed attempts, which adaptive configurations
// reached their target, and whether campaigns' calibrations differ. Nothing for databases that
// recorded none of it, so older reports read as they did.
#include <optional>
#include <string>
#include <vector>

#include "report/model/results_source.h"
#include "store/sqlite_db.h"

namespace mt {

// Summary warnings about disturbed attempts and configurations.
std::vector<std::string> disturbance_warnings(const std::vector<ReportTrial>& trials, bool keep_disturbed);

// "Trials ran in shuffled order (seed 42)." and the adaptive repeats' outcome, one paragraph each;
// "" when the campaigns recorded neither.
std::string run_conditions_notes(Database& db, const ReportData& data);

// "Calibration differs: …" when two sets of attempts' SGEMM calibrations differ beyond their noise
// (Welch p < 0.05), else nullopt; a calibration is the engine's GFLOP/s per thread.
std::optional<std::string> calibration_difference(const std::string& a_name, const std::vector<double>& a,
                                                  const std::string& b_name, const std::vector<double>& b);

// The calibrations of a campaign's succeeded trials.
std::vector<double> calibrations_of(const std::vector<ReportTrial>& trials, const std::string& campaign_id);

}  // namespace mt
