// Exact GELU, x·Φ(x), with its own autograd function over hand-vectorised kernels: ATen 1.13's
// CPU erf and GELU-backward kernels cost several times more per element.
#pragma once

#include <torch/torch.h>

namespace mt {

// fp32 CPU tensors take the fused path; anything else torch::gelu. Same value and gradient as
// torch::gelu (approximate "none") to within 1e-6.
torch::Tensor erf_gelu(const torch::Tensor& x);

}  // namespace mt
