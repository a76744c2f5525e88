#pragma once
// Tensor/sequence-parallel checks against the unsplit computation, and the process-group grid:
// per-dimension collective times, membership checks and the collective-order hazard; and both as
// charts.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/render/report_plots.h"

namespace mt {

std::string render_tp_section(const std::vector<const Group*>& groups);
std::string render_groups_section(const std::vector<const Group*>& groups);

// The tensor-parallel checks' worst error ÷ tolerance per layer and configuration (how far each is
// from failing), and each process-group dimension's time per step per mapping order. Nothing for
// groups without such results.
PlotSet parallelism_plots(const std::vector<const Group*>& tp_groups, const std::vector<const Group*>& grid_groups);

}  // namespace mt
