// Embedding lookup (rows of `weight` picked by token or position ids) with its own autograd
// function: where the weight is registered for it (grad_in_place.h) and on the CPU, backward
// scatters the output gradient's rows straight into .grad, instead of ATen's, which zeroes a
// weight-sized buffer, scatters into it and leaves autograd to add that buffer to .grad.
#pragma once

#include <torch/torch.h>

namespace mt {

// weight [V, d], ids (any shape, int64) -> [ids..., d]; the same value and gradient as
// torch::embedding without padding index or gradient scaling.
torch::Tensor embedding_lookup(const torch::Tensor& weight, const torch::Tensor& ids);

}  // namespace mt
