// Activation checkpointing per block: the forward keeps only the block's input; backward runs
// the block again with the same random state and autocast setting, then back-propagates through
// the recomputation. Single-device, like the model: a strategy may wrap the result further.
#pragma once

#include "training/model/gpt.h"

namespace mt {

// A runner that checkpoints every block, calling `inner` for the actual block computation.
BlockRunner checkpointed_runner(BlockRunner inner);

}  // namespace mt
