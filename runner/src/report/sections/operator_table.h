#pragma once
// "Top operators": what LibTorch's own profiler (Kineto, host operators) saw in the step it
// recorded per rank (the result's profile.ranks[].operators): for each profiled configuration its
// largest operators by self time, averaged over ranks and repeats, beside how much of that step
// the operators account for.
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// Markdown for the groups' top `top` operators each; "" when no trial recorded any operator (an
// engine before the operator profile, or runs that could not record one: the reason is shown).
std::string render_operator_table(const std::vector<const Group*>& groups, std::size_t top);

}  // namespace mt
