// The collectives of tensor and sequence parallelism as autograd functions (Megatron-LM's f, g and
// their sequence-parallel forms), over the engine's communicator. Each is the other's transpose:
//   copy_to_tp            forward identity,                backward all-reduce
//   reduce_from_tp        forward all-reduce,              backward identity
//   gather_sequence       forward all-gather along dim 1,  backward reduce-scatter along dim 1
//   scatter_sequence      forward reduce-scatter, dim 1,   backward all-gather along dim 1
// Tensors are fp32 on the communicator's device; the sequence dimension must divide by the ranks.
#pragma once

#include <torch/torch.h>

#include "core/comm/communicator.h"

namespace mt {

torch::Tensor copy_to_tp(const torch::Tensor& x, Communicator& comm);
torch::Tensor reduce_from_tp(const torch::Tensor& x, Communicator& comm);
torch::Tensor gather_sequence(const torch::Tensor& x, Communicator& comm);
torch::Tensor scatter_sequence(const torch::Tensor& x, Communicator& comm);

}  // namespace mt
