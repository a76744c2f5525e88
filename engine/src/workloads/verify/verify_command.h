// `mtengine verify A B`: are two checkpoints the same state? An MPI job at the checkpoints' world
// size; each rank compares its own shard of A and B by SHA-256 digests, tensor by tensor, and the
// verdicts are gathered in rank order, so the full model never sits on one rank. Per component
// (model, optimizer, scheduler, train_state, data, rng): match, or the first differing tensor and
// its rank. Checkpoints of different layouts (strategy or world size) are compared by their
// logical state instead, on rank 0, at any world size. Exit 0 on an exact match, 1 on a mismatch,
// 2 when a checkpoint is unusable.
#pragma once

#include <string>

#include "core/cli/job_options.h"

namespace mt {

struct VerifyConfig {
  std::string a, b;
  JobOptions job{"mpi", 0, ""};  // only --output: a verify never waits on a peer's collective
};

int run_verify_command(const VerifyConfig& config);

}  // namespace mt
