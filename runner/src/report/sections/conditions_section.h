#pragma once
// The measurement conditions of every training configuration: how its job used the cores (ranks
// per node × threads per rank against the node's cores), the launch environment values, the BLAS
// threads and probe where recorded, and how many steps each trial measured and how steady they
// were — what a skeptical reader checks before believing a throughput.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

std::string render_conditions_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);

// Distinct values of an environment field over a group's trials, joined with '/'; "" when none has it.
std::string group_environment_text(const Group& group, const std::string& key);

}  // namespace mt
