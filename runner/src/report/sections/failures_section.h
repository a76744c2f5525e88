#pragma once
// Every trial that did not succeed: how it ended, where (rank, step) when known, and its log. A
// trial still running has not failed: it is counted apart, here and wherever failures are counted.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

// No success yet, and its latest attempt runs now under a live runner (results_source.cpp reads one
// whose runner is gone as interrupted): neither a success nor a failure.
bool still_running(const ReportTrial& t);

std::string render_failures_section(const std::vector<ReportTrial>& trials);

}  // namespace mt
