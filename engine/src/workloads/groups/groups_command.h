// `mtengine groups`: process groups of a TP × PP × DP grid for a mapping order. Each dimension's
// sub-communicator is made by splitting the world; each group's all-reduce of (rank + 1) is
// checked against the members the mapping implies; per step, TP runs several all-reduces, PP one
// hand-off to the next stage and DP one all-reduce (as in a training step), each timed (max over
// ranks). And the silent-corruption hazard, shown and caught: two same-shaped all-reduces issued
// in a different order on different ranks complete without error but swap data; a checksum
// element carried in each tensor detects it.
#pragma once

#include <cstdint>
#include <string>

#include "core/cli/option_table.h"

namespace mt {

struct GroupsConfig {
  int64_t tp = 2, pp = 1;  // dp = ranks / (tp · pp)
  std::string order = "tp-pp-dp";
  int64_t bytes = 1 << 20;
  int64_t tp_collectives_per_step = 4;
  int64_t steps = 10, warmup = 2;
  bool hazard = true;
  JobOptions job{"mpi", 60, ""};  // --backend, --collective-timeout (a minute), --output
};

OptionTable groups_option_table(GroupsConfig& config);
int run_groups_command(const GroupsConfig& config);

}  // namespace mt
