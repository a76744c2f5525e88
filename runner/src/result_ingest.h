#pragma once
// Turns how a launch ended (exit status, result JSON, log) into a classified attempt outcome with
// its metrics, ready for the store.
#include <filesystem>

#include "process.h"
#include "store.h"

namespace mt {

AttemptOutcome classify_attempt(const ProcessOutcome& process, const std::filesystem::path& result_file,
                                const std::filesystem::path& log_file);

// Every number in a result JSON, nested names joined by '.'; arrays are left to step_series.
std::vector<MetricValue> flatten_metrics(const std::string& result_json);

}  // namespace mt
