#pragma once
// Two campaigns side by side: for every group both ran, the means of its key metrics, their ratio,
// and a Welch t-test saying whether the difference stands out from the run-to-run noise.
#include <string>

#include "report/results_source.h"

namespace mt {

std::string render_comparison(const ReportData& a, const ReportData& b);

}  // namespace mt
