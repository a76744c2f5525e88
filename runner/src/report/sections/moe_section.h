#pragma once
// The MoE section: expert-parallel dispatch, compute and combine per routing, and per rank, so the
// hot expert's cost and the waiting it causes in the other ranks' combine are visible; and the same
// per rank as a chart.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/render/report_plots.h"

namespace mt {

std::string render_moe_section(const std::vector<const Group*>& groups);

// Per rank, stacked: dispatch, compute and combine time, one bar per rank of each configuration, so
// the hot expert's long compute and the others' wait in combine stand side by side. Nothing when no
// result carries per-rank times.
PlotSet moe_plots(const std::vector<const Group*>& groups);

}  // namespace mt
