#pragma once
// The collectives as charts: per operation, bus bandwidth and latency against message size, one
// line per study and rank count (the engine beside its peers), mean ± std over the repeats, on
// logarithmic axes (sizes and times span decades). Rank counts that oversubscribed the cores are
// drawn dotted and marked in the legend.
#include <vector>

#include "report/groups.h"
#include "report/report_plots.h"

namespace mt {

// Nothing when no group carries collective result rows.
PlotSet comm_plots(const std::vector<const Group*>& groups);

}  // namespace mt
