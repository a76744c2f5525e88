// `mtengine train`: the training benchmark as a workload (see workload/workload.h).
#pragma once

#include "training/trainer/config.h"

namespace mt {

int run_train_command(const TrainConfig& config);

}  // namespace mt
