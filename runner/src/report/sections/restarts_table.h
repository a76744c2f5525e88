#pragma once
// The report's account of automatic restarts (a study's `restart:`): every job that was relaunched,
// launch by launch — how it ended, how far it had got, where the next launch resumed, the steps it
// recomputed and the time until it was back — and the totals per scenario and strategy.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

// "" when no trial's latest attempt relaunched a job.
std::string render_restarts(const std::vector<ReportTrial>& trials);

}  // namespace mt
