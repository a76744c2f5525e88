#pragma once
// The communication section, for `comm` results. A collective benchmark's one encoding is its
// result `rows` (comm_rows_section.h: one row per operation, size, variant), with the bandwidths as
// the measuring program computed them; a result without rows (a program of the user's that
// reports one measurement as plain metrics) is shown metric by metric.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

// `figures`: markdown shown after the goals, before the per-operation tables (comm_rows_section.h).
std::string render_comm_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                const std::string& figures = "");

}  // namespace mt
