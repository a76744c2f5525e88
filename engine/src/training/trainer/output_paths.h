// The files `mtengine train` writes besides checkpoints (--output, --weights-out, --gradients-out,
// --progress-file, the --profile directory), checked together before the job starts: each must be
// writable as a file, none may lie inside a checkpoint step (a run must not change what it or
// another run resumes from), and no two may be the same file (one would silently replace the other).
#pragma once

#include <optional>
#include <string>

#include "training/trainer/config.h"

namespace mt {

// The first problem, naming the flag(s) and path(s), or nothing.
std::optional<std::string> train_output_problem(const TrainConfig& config);

}  // namespace mt
