// `mpirun -np N mtengine reshard SRC DST --strategy S`: a published checkpoint rewritten for another
// strategy and world size, offline. Each rank builds the model and the strategy as a run would,
// loads exactly the slices its layout needs from SRC (see checkpoint/reshard.h), and the ranks
// save one step into DST with the usual atomic protocol: the same global step, settings and
// fingerprint, so a run of that strategy and world size resumes from it as from its own.
#pragma once

#include <cstdint>
#include <string>

#include "core/comm/process_group.h"

namespace mt {

struct ReshardRequest {
  std::string source;       // a step directory
  std::string destination;  // a checkpoint directory (step_N/ is created in it)
  std::string strategy;
  double bucket_cap_mb = 0;  // 0: the strategy's default
};

struct ReshardReport {
  int64_t step = 0;
  uint64_t bytes = 0;
  std::string source_strategy;
  int source_world_size = 0;
};

// Collective. Throws CheckpointError (every rank alike) on an unusable source.
ReshardReport reshard_on_this_rank(const ReshardRequest& request, ProcessGroup& group);

}  // namespace mt
