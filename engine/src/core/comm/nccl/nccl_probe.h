// A tiny NCCL all-reduce on device buffers across the launched ranks, for `doctor`: each rank
// contributes rank + 1 and every rank must see n (n + 1) / 2. Rank 0 prints the verdict.
#pragma once

#include "core/comm/control_channel.h"

namespace mt {

bool nccl_probe(ControlChannel& control);

}  // namespace mt
