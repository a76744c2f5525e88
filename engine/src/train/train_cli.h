// Binds the `mtengine train` flags to a TrainConfig.
#pragma once

#include <CLI/CLI.hpp>

#include "train/config.h"

namespace mt {

void add_train_options(CLI::App& command, TrainConfig& config);

}  // namespace mt
