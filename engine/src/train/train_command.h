// `mtengine train`: validate, run on every rank, aggregate, write the result. Returns the exit code.
#pragma once

#include "train/config.h"

namespace mt {

// 0 ok, 1 the run failed (result JSON with status "error" written when possible), 2 bad input.
int run_train_command(TrainConfig config);

}  // namespace mt
