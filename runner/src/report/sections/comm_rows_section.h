#pragma once
// The communication section for results that carry rows (mtengine comm and its peers; see
// comm_rows.h): the goals against each peer at ≥ 1 MiB with their verdicts and the versions they
// depend on, then per operation every rank count, variant and size with the studies' busbw side by
// side and the engine ÷ peer ratios, the cliffs of every curve, and, collapsed, latency, algbw,
// busbw and wrong values of every measurement. Oversubscribed rank counts are marked on every row.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

// `groups` all carry rows (has_result_rows). Renders the section body without its "## " heading.
// `figures`: markdown placed after the goals, before the tables of every measurement (the plots).
std::string render_comm_rows(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                             const std::string& figures = "");

}  // namespace mt
