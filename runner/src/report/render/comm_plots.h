#pragma once
// The collectives as charts: per operation and variant (in place, out of place, uneven), bus
// bandwidth and latency against message size, one line per study and rank count (the engine beside
// its peers), mean ± std over the repeats, on logarithmic axes (sizes and times span decades). Rank counts that oversubscribed the cores are
// drawn dotted and marked in the legend.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/render/report_plots.h"

namespace mt {

// Nothing when no group carries collective result rows.
PlotSet comm_plots(const std::vector<const Group*>& groups);

// A chart's size label: size_text, or "≈1 KiB" for a size at most 12.5 % above a power of two (an
// uneven all-to-all moves a few bytes more than the sweep's size it stands for).
std::string comm_size_label(double bytes);

}  // namespace mt
