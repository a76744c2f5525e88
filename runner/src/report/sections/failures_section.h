#pragma once
// Every trial that did not succeed: how it ended, where (rank, step) when known, and its log.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

std::string render_failures_section(const std::vector<ReportTrial>& trials);

}  // namespace mt
