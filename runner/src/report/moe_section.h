#pragma once
// The MoE section: expert-parallel dispatch, compute and combine per routing, and per rank, so the
// hot expert's cost and the waiting it causes in the other ranks' combine are visible.
#include <string>
#include <vector>

#include "report/groups.h"

namespace mt {

std::string render_moe_section(const std::vector<const Group*>& groups);

}  // namespace mt
