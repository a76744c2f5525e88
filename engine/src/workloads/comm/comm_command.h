// `mtengine comm`: collective benchmarks in the manner of nccl-tests. For each collective, message
// size, placement (in place or not) and all-to-all split: warmup iterations, then timed ones; the
// latency is the max over ranks of each rank's mean per-iteration time, algbw = bytes / latency,
// busbw = algbw × the collective's bus factor. Before a size's timing counts, one fresh run is
// checked element by element; any wrong value makes the run exit 1. One row per measurement in
// the result JSON.
#pragma once

#include "workloads/comm/comm_config.h"

namespace mt {

int run_comm_command(const CommConfig& config);

}  // namespace mt
