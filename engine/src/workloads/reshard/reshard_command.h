// `mpirun -np N mtengine reshard SRC DST --strategy S`: see training/trainer/reshard_job.h. Exit 0,
// 2 when the source is unusable (named), 1 on a failure while writing.
#pragma once

#include "core/cli/job_options.h"
#include "training/trainer/reshard_job.h"

namespace mt {

struct ReshardConfig {
  ReshardRequest request;
  JobOptions job{"mpi", 300, ""};  // --output: the result JSON (rank 0)
};

int run_reshard_command(const ReshardConfig& config);

}  // namespace mt
