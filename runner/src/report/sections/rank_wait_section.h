#pragma once
// Stragglers: how long ranks waited at each step's start for the slowest one (the engine's
// per_step.rank_wait_ms). A step takes as long as its slowest rank, so a straggler's time is in
// the step time already; this says that it was a straggler, which rank, and at which step.
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// A configuration is listed when its ranks waited at least this share of the step on average.
inline constexpr double kStragglerShare = 0.10;

struct RankWaitRow {
  const Group* group = nullptr;
  double step_ms = 0;                // mean measured step time
  double wait_ms = 0;                // mean over trials of the most-waiting rank's mean wait
  std::vector<double> rank_wait_ms;  // per rank, mean wait over trials and measured steps
  int slowest_rank = 0;              // waited least: the others waited for it
  long long worst_step = 0;          // the measured step with the longest wait, over trials
  double worst_wait_ms = 0;
  double share() const { return step_ms > 0 ? wait_ms / step_ms : 0; }
};

// Multi-rank training groups whose ranks waited at least kStragglerShare of the step.
std::vector<RankWaitRow> straggler_rows(const std::vector<const Group*>& training);

// "## Waiting for the slowest rank" with one row per straggling configuration; "" when none.
std::string render_rank_wait_section(const std::vector<RankWaitRow>& rows);

// One summary warning per straggling configuration.
std::vector<std::string> straggler_warnings(const std::vector<RankWaitRow>& rows);

}  // namespace mt
