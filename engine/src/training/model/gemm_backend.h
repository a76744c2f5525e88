// Which library runs the fp32 GEMMs of the model's dense layers (the linear layers and the tied LM
// head): MKL, through ATen's addmm and mm, or oneDNN, through ATen's mkldnn_matmul (or, on CPUs
// where this libtorch refuses that entry, the linear-layer op mkldnn::_linear_pointwise). Both ship in
// the PyTorch wheel and neither wins everywhere: through the same wheel on an AMD EPYC (Zen 5),
// 2 threads, the upstream model's shapes ran at 144-208 GFLOP/s on MKL and 428-454 on oneDNN. So
// each product a layer runs (the forward one and both backward ones) gets the backend measured
// fastest for its shape on this machine, unless a run pins one (--gemm-backend).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "training/model/gemm_tally.h"

namespace mt {

enum class GemmBackend { mkl, onednn };
const char* gemm_backend_name(GemmBackend backend);

// C[m×n] = op(A)·op(B), op(X) = Xᵀ where transposed: a row-major product as a layer runs it.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  bool operator==(const GemmShape& o) const {
    return m == o.m && n == o.n && k == o.k && trans_a == o.trans_a && trans_b == o.trans_b;
  }
  std::string text() const;  // "512×768×256 (A·Bᵀ)"
};

struct GemmChoice {
  GemmShape shape;
  GemmBackend backend = GemmBackend::mkl;
  double mkl_gflops = 0, onednn_gflops = 0;  // as measured when the choice was made
  bool pinned = false;                       // set by --gemm-backend, not by the measurement
  bool from_checkpoint = false;              // the backend the resumed checkpoint was computed with
  std::string measured_on_busy_machine{};    // why the speeds were not kept, where they were not
  bool speeds_from_earlier_launch = false;   // busy: the speeds an earlier busy launch measured stand in
};

// The three products of y = x·Wᵀ (+ b) on `tokens` rows of `in` features into `out`: forward
// x·Wᵀ, input gradient dy·W and weight gradient dyᵀ·x.
std::vector<GemmShape> linear_layer_shapes(int64_t tokens, int64_t in, int64_t out);

// Whether oneDNN's measured speed beats MKL's by more than timing noise (5 %).
bool prefer_onednn(double mkl_gflops, double onednn_gflops);

// Times both backends on `shape` (fresh operands, taking turns, best of several calls each) and
// picks the faster.
GemmChoice measure_gemm_choice(const GemmShape& shape);

// Every shape's choice from two passes of `measure` over `shapes`, the second in reverse order,
// each backend's speed the better of its two readings: a load that comes for a moment slows a few
// neighbouring shapes in one pass, not the same shapes in both. (Measured in one pass, three 512³
// products of the 23.2M model were once kept at 99 GFLOP/s on a 2-vCPU EPYC (Zen 4) where they run
// at 175-195, and one of them went to the slower library.)
std::vector<GemmChoice> measure_gemm_choices(
    const std::vector<GemmShape>& shapes,
    const std::function<GemmChoice(const GemmShape&)>& measure = measure_gemm_choice);

// The table dense layers consult, set before training; a shape not in it runs on MKL. Process-wide:
// a block recomputed for activation checkpointing runs its products as its forward did.
void set_gemm_choices(std::vector<GemmChoice> choices);
const std::vector<GemmChoice>& gemm_choices();
// One backend for every shape, table or not (tests; nullopt: the table decides).
void pin_gemm_backend(std::optional<GemmBackend> backend);
// Whether dense layers run their products through this table (else ATen's linear, as before).
bool gemm_dispatch_active();
GemmBackend gemm_backend_for(const GemmShape& shape);
std::optional<GemmBackend> parse_gemm_backend(const std::string& name);

// C = A·B on the backend chosen for its shape (A and B 2-D fp32, each contiguous or a transposed
// contiguous matrix).
torch::Tensor dispatched_mm(const torch::Tensor& a, const torch::Tensor& b);
torch::Tensor dispatched_mm_on(GemmBackend backend, const torch::Tensor& a, const torch::Tensor& b);
// Which of ATen's entries reaches oneDNN on this CPU, and why where it is not the direct one.
std::string onednn_entry();
// Whether oneDNN's products can add into an existing result here (the direct entry's sum
// post-op): a weight gradient chosen for oneDNN then lands in .grad as MKL's does (grad_in_place.h).
bool onednn_accumulates();
// oneDNN's product through mkldnn::_linear_pointwise (input·weightᵀ on dense tensors), the entry
// inductor uses for linear layers, which runs on every x86-64 CPU: the oneDNN backend where
// mkldnn_matmul is refused. Not differentiable.
torch::Tensor onednn_mm_through_linear_op(const torch::Tensor& a, const torch::Tensor& b);

// y = x·Wᵀ + b (bias optional) over the last dimension of x, with autograd, every product on its
// chosen backend. fp32 only; callers under bf16 autocast use torch::linear.
torch::Tensor dispatched_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

// The running totals of these products' time and FLOPs: gemm_tally.h.

}  // namespace mt
