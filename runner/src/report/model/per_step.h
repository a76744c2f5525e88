#pragma once
// The engine's per-step series (result `per_step`): one array per rank, one value per step run,
// warmup first. A single rank's series may be written flat.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

// per_step[name] as one series per rank; empty when the result has none.
std::vector<std::vector<double>> per_rank_series(const ReportTrial& trial, const std::string& name);

// The step number of a series' first entry (per_step.first_step; 0 when absent).
long long first_step_of(const ReportTrial& trial);

}  // namespace mt
