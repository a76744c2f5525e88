// How long the dense layers' GEMMs took and how much they computed (gemm_backend.h runs them),
// without LibTorch: what the trainer reads around each step and records per shape.
#pragma once

#include <vector>

namespace mt {

// Running totals over the products dense layers ran through dispatched_linear (forward, with the
// bias MKL fuses into it, and both gradients; the start-up measurement is not counted), in this
// process. The trainer takes their growth over a step: how long the step's GEMMs took and at what
// speed, which with the step's time says what bounds its MFU. Two clock reads a product.
struct GemmTally {
  double seconds = 0;
  double flops = 0;  // 2·m·n·k per product
};
GemmTally gemm_tally();
// The same totals per shape of the choice table (gemm_choices()' order), from when it was set:
// which products the step's GEMM time goes to, and how fast each runs inside the step against
// what the start-up measurement read.
std::vector<GemmTally> gemm_tally_by_shape();

}  // namespace mt
