#include "core/comm/first_rank_problem.h"

#include <cstddef>

namespace mt {

std::optional<RankProblem> first_rank_problem(ControlChannel& control, const std::string& mine) {
  const double first = control.min(mine.empty() ? control.world_size() : control.rank());
  if (first >= control.world_size()) return std::nullopt;
  const auto all = control.gather_text_to_root(mine);  // only once some rank has a problem
  RankProblem problem{static_cast<int>(first), ""};
  if (control.rank() == 0) problem.words = all[static_cast<std::size_t>(problem.rank)];
  else if (control.rank() == problem.rank) problem.words = mine;
  return problem;
}

}  // namespace mt
