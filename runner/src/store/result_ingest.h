#pragma once
// Turns how a launch ended (exit status, result JSON, log) into a classified attempt outcome with
// its metrics, ready for the store.
#include <filesystem>

#include "launch/process.h"
#include "store/store.h"

namespace mt {

// Engine workloads succeed with exit 0 and a result JSON whose status is "ok"; a `command`
// workload succeeds with exit 0 and every declared metric found (all numbers of a JSON object it
// wrote to {result_file} are kept too). A result's `rows` are kept as they are (result_rows.h);
// rows past the bounds reject the result file.
AttemptOutcome classify_attempt(const ProcessOutcome& process, const std::filesystem::path& result_file,
                                const std::filesystem::path& log_file, const Trial& trial);

// Every number in a result JSON, nested names joined by '.'; arrays are left to step_series.
std::vector<MetricValue> flatten_metrics(const std::string& result_json);

}  // namespace mt
