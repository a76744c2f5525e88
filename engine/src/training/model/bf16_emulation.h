// bf16 matrix products on CPUs without bf16 instructions. There, ATen's bf16 GEMM falls back to a
// scalar loop (measured on an AVX2-only AMD EPYC: 80 tok/s against 3,200 in fp32, the same in
// PyTorch 2.15 with autocast). A bf16 GEMM multiplies bf16-rounded operands exactly and
// accumulates in fp32, so the engine computes the same thing with fp32 GEMMs on operands rounded
// to bf16, rounding the product to bf16 as well: bf16 numerics at fp32 GEMM speed. Activations
// stay in fp32 storage, so unlike native bf16 this saves no activation memory.
// Process-wide for a run (the precision of a run is fixed), so a block recomputed for activation
// checkpointing sees the same setting as its forward did.
#pragma once

#include <torch/torch.h>

namespace mt {

void set_bf16_emulation(bool on);
bool bf16_emulation();

// x rounded to the nearest bf16 (kept fp32) when emulation is on; x itself otherwise.
torch::Tensor bf16_round(const torch::Tensor& x);

// Whether this CPU multiplies bf16 natively (AVX512-BF16 or AMX), so autocast is fast.
bool cpu_has_native_bf16();

}  // namespace mt
