#pragma once
// Sections for workloads the report has no dedicated layout for, and fault scenarios: every numeric
// metric of every group as mean ± std. They appear only when the database holds such trials.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

// "## title", a sentence of context, and one row per group and metric.
std::string render_metric_section(const std::string& title, const std::string& intro,
                                  const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);

// Fault scenarios: how every trial ended (failing may be the expected outcome), then their metrics.
std::string render_fault_section(const std::vector<ReportTrial>& trials, const std::vector<const Group*>& groups,
                                 const ProvenanceAnalysis& provenance);

}  // namespace mt
