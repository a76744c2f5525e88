// `mtengine moe`: expert-parallel dispatch and combine. Each rank holds one expert (Linear d→4d,
// GELU, Linear 4d→d); every iteration exchanges the per-expert counts, dispatches the tokens with
// a variable-split all-to-all, runs the expert, and combines the results with the reverse
// all-to-all. Timed per phase (max over ranks); tokens received per rank, the max/mean
// imbalance and dropped tokens reported. The oracle, checked before the timings count: token ids
// travel with the tokens and must all come back to where they started, and the combined output
// must equal a single-process computation of the same routing (within --atol). Exit 1 otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/cli/option_table.h"
#include "workloads/moe/routing.h"

namespace mt {

struct MoeConfig {
  int64_t tokens = 2048;  // per rank
  int64_t d_model = 256;
  RoutingConfig routing;
  int64_t warmup = 2;
  int64_t iters = 10;
  int threads = 0;
  double atol = 1e-4;
  JobOptions job;  // --backend, --collective-timeout, --output
};

OptionTable moe_option_table(MoeConfig& config);
int run_moe_command(const MoeConfig& config);

}  // namespace mt
