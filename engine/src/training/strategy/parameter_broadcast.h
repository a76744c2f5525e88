// Makes every rank's parameters equal to rank 0's, in one collective: the parameters are packed
// into one flat buffer on their device, broadcast, and unpacked.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/comm/communicator.h"

namespace mt {

void broadcast_parameters(Communicator& comm, const std::vector<torch::Tensor>& parameters);

}  // namespace mt
