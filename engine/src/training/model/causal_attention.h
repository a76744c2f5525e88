// Causal multi-head attention core: from the fused q|k|v projection to the heads' concatenated
// outputs, before the output projection.
//
// The fused path is one autograd function: per head, the products run in the engine's own small
// GEMM kernel straight on the strided q/k/v inside the projection (the kernel packs its right-hand
// operand itself, kᵀ and vᵀ included) and write the output in [B, S, d] layout; they and the
// hand-vectorised causal softmax skip the hidden half. The composite path (baddbmm with an
// additive mask, softmax, dropout, bmm) serves dropout, autocast and other devices, and is the
// reference the fused path is tested against.
#pragma once

#include <torch/torch.h>

namespace mt {

// qkv [B, S, 3d]: queries, keys, values along the last dim, each split into n_heads slices of
// d / n_heads. Returns [B, S, d]. Dropout applies to the attention weights when training.
torch::Tensor causal_attention(const torch::Tensor& qkv, int64_t n_heads, double dropout, bool training);

// The composite formulation, always: autograd through ATen ops.
torch::Tensor composite_causal_attention(const torch::Tensor& qkv, int64_t n_heads, double dropout, bool training);

}  // namespace mt
