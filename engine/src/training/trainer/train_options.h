// The flags of `mtengine train`, as an option table bound to a TrainConfig.
#pragma once

#include "core/cli/option_table.h"
#include "training/trainer/config.h"

namespace mt {

// The table's targets point into `config`; it must outlive the table.
OptionTable train_option_table(TrainConfig& config);

}  // namespace mt
