#pragma once
// What profiling costs: each profiled training configuration against the same configuration run
// unprofiled in the same report (the same workload and parameters, another study), tokens/s side by
// side with a Welch test, and the overhead 1 − profiled ÷ unprofiled.
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// "" when no group is profiled; says so when no unprofiled twin ran.
std::string render_profiler_overhead(const std::vector<const Group*>& profiled,
                                     const std::vector<const Group*>& unprofiled);

}  // namespace mt
