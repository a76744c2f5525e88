// Model FLOPs utilisation: how much of the machine a training run uses, counted the way llm.c,
// nanoGPT and the PaLM paper (appendix B) count it, so figures compare across implementations.
//
// Training FLOPs per token = 6·N + 12·L·d·T:
//   6·N   every weight is used in one multiply-add (2 FLOPs) forward and two backward (input and
//         weight gradients); N counts the weights that multiply: every parameter except the
//         learned position table, a lookup (the token table counts: it is also the tied LM head);
//   12·L·d·T  attention's two products per layer (scores Q·Kᵀ and P·V, 2·d·T FLOPs each per
//         token forward, twice that backward), with the causal mask not discounted.
// Recomputation (activation checkpointing) is not counted: MFU measures useful work.
#pragma once

#include <cstdint>

namespace mt {

struct ModelShape {
  int64_t parameters = 0;  // all of them, position table included
  int64_t n_layers = 0, d_model = 0, seq_length = 0;
};

double training_flops_per_token(const ModelShape& shape);

// Achieved FLOP/s over `peak_flops` (both for the whole job): 0 when the peak is unknown.
double utilisation(double flops_per_token, double tokens_per_sec, double peak_flops);

}  // namespace mt
