#pragma once
// The report's section for chains of stages (studies with `stages`, such as the fault-tolerance
// scenarios): per scenario and strategy the verdict, each stage's expected and observed outcome,
// the automatic restarts (restarts_table.h), and the checkpoint save and load times and sizes the
// stages' result files recorded; and the chains as a timeline.
#include <string>
#include <vector>

#include "report/render/report_plots.h"
#include "report/model/results_source.h"

namespace mt {

// "" when no trial is a chain and none restarted.
std::string render_fault_tolerance_section(const std::vector<ReportTrial>& trials);

// A timeline of every chain: its stages one after another at their wall times — launches, kills,
// failures and resumes — coloured by how each ended. Nothing when no chain recorded its stages.
PlotSet fault_tolerance_plots(const std::vector<ReportTrial>& trials);

}  // namespace mt
