#pragma once
// The report's charts, from its training groups: tokens/s against ranks per strategy (with ideal
// scaling as a dashed reference and ± std error bars), peak memory per strategy, and the step-time
// breakdown.
#include <string>
#include <vector>

#include "report/groups.h"

namespace mt {

struct Plot {
  std::string file;     // "tokens_per_sec.svg"
  std::string caption;  // alt text and heading
  std::string svg;
};

// Empty when there are no training groups.
std::vector<Plot> training_plots(const std::vector<const Group*>& groups);

}  // namespace mt
