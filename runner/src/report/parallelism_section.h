#pragma once
// Tensor/sequence-parallel checks against the unsplit computation, and the process-group grid:
// per-dimension collective times, membership checks and the collective-order hazard.
#include <string>
#include <vector>

#include "report/groups.h"

namespace mt {

std::string render_tp_section(const std::vector<const Group*>& groups);
std::string render_groups_section(const std::vector<const Group*>& groups);

}  // namespace mt
