#include "training/model/gemm_backend.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "training/model/grad_in_place.h"

namespace at::native {
// ATen's oneDNN matrix product (result = beta·result + alpha·mat1·mat2), exported by libtorch_cpu;
// the wheel ships no header for it. fp32, bf16 and fp16; contiguous or transposed operands.
TORCH_API void mkldnn_matmul(const Tensor& mat1, const Tensor& mat2, const Tensor& result, float beta, float alpha);
}  // namespace at::native

namespace mt {
namespace {

// Whether ATen's direct oneDNN entry, mkldnn_matmul, runs here: this libtorch refuses it, fp32
// included, on CPUs without AVX-512 (BW, VL, DQ) or AVX-NE-CONVERT. Tried once on a 1×1 product;
// the reason is kept for the result.
const std::string& onednn_matmul_refusal() {
  static const std::string refusal = [] {
    try {
      auto one = torch::ones({1, 1});
      auto out = torch::empty({1, 1});
      at::native::mkldnn_matmul(one, one, out, 0.0f, 1.0f);
      return std::string();
    } catch (const c10::Error& e) {
      const std::string what = e.what_without_backtrace();
      return what.substr(0, what.find('\n'));
    }
  }();
  return refusal;
}

std::atomic<int64_t> tally_ns{0}, tally_flops{0};

std::vector<GemmChoice>& choice_table() {
  static std::vector<GemmChoice> table;
  return table;
}

// Where `shape` stands in the choice table, if it does.
std::optional<size_t> choice_index(const GemmShape& shape) {
  const auto& table = choice_table();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].shape == shape) return i;
  return std::nullopt;
}

// The same running totals per shape of the choice table, in its order: time and calls.
struct ShapeTallies {
  std::vector<std::atomic<int64_t>> ns, calls;
};
ShapeTallies& shape_tallies() {
  static ShapeTallies tallies;
  return tallies;
}

void tally_shape(const GemmShape& shape, int64_t ns) {
  if (const auto i = choice_index(shape)) {
    shape_tallies().ns[*i].fetch_add(ns, std::memory_order_relaxed);
    shape_tallies().calls[*i].fetch_add(1, std::memory_order_relaxed);
  }
}

// Runs `product`, a dense layer's GEMM of `shape`, and adds its time and FLOPs to the tally.
template <class Product>
torch::Tensor tallied(const GemmShape& shape, Product&& product) {
  // Named in LibTorch's profiler: oneDNN's entry is not a dispatched operator, so its products
  // would otherwise count as time outside any operator.
  RECORD_FUNCTION("mt::dense_gemm", std::vector<c10::IValue>());
  const auto start = std::chrono::steady_clock::now();
  torch::Tensor out = product();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  tally_ns.fetch_add(ns.count(), std::memory_order_relaxed);
  tally_flops.fetch_add(2 * shape.m * shape.n * shape.k, std::memory_order_relaxed);
  tally_shape(shape, ns.count());
  return out;
}

std::optional<GemmBackend>& pinned_backend() {
  static std::optional<GemmBackend> pinned;
  return pinned;
}

// A 2-D operand is used as stored, or as the transpose of a contiguous matrix (a .t() view).
bool is_transposed(const torch::Tensor& t) { return !t.is_contiguous() && t.t().is_contiguous(); }

torch::Tensor as_operand(const torch::Tensor& t) { return t.is_contiguous() || is_transposed(t) ? t : t.contiguous(); }

GemmShape shape_of(const torch::Tensor& a, const torch::Tensor& b) {
  return {a.size(0), b.size(1), a.size(1), is_transposed(a), is_transposed(b)};
}

// Operands laid out as `shape` says, filled with small values.
std::pair<torch::Tensor, torch::Tensor> operands(const GemmShape& s) {
  auto a = s.trans_a ? torch::rand({s.k, s.m}).t() : torch::rand({s.m, s.k});
  auto b = s.trans_b ? torch::rand({s.n, s.k}).t() : torch::rand({s.k, s.n});
  return {a, b};
}

double gflops(const GemmShape& s, double seconds) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) / seconds / 1e9;
}

}  // namespace

bool prefer_onednn(double mkl_gflops, double onednn_gflops) {
  // Best-of-five timings of one shape move by a few percent from launch to launch: within that,
  // MKL (ATen's own choice) stays.
  return onednn_gflops > 1.05 * mkl_gflops;
}

const char* gemm_backend_name(GemmBackend backend) { return backend == GemmBackend::onednn ? "onednn" : "mkl"; }

std::string GemmShape::text() const {
  return fmt::format("{}×{}×{} ({}·{})", m, n, k, trans_a ? "Aᵀ" : "A", trans_b ? "Bᵀ" : "B");
}

std::vector<GemmShape> linear_layer_shapes(int64_t tokens, int64_t in, int64_t out) {
  return {{tokens, out, in, false, true},   // y = x·Wᵀ: W is [out, in]
          {tokens, in, out, false, false},  // dx = dy·W
          {out, in, tokens, true, false}};  // dW = dyᵀ·x
}

GemmChoice measure_gemm_choice(const GemmShape& shape) {
  auto [a, b] = operands(shape);
  using Clock = std::chrono::steady_clock;
  const GemmBackend backends[] = {GemmBackend::mkl, GemmBackend::onednn};
  double best[] = {1e30, 1e30};
  // The two backends take turns, call by call, so a load that comes or goes while they are
  // measured slows both alike and the choice, a ratio, stays sound. Two rounds warm up (oneDNN
  // builds and caches its kernel at its first call), then the best of five per backend.
  for (int round = 0; round < 7; ++round)
    for (int i = 0; i < 2; ++i) {
      const auto start = Clock::now();
      auto c = dispatched_mm_on(backends[i], a, b);
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (round >= 2) best[i] = std::min(best[i], seconds);
    }
  GemmChoice choice;
  choice.shape = shape;
  choice.mkl_gflops = gflops(shape, best[0]);
  choice.onednn_gflops = gflops(shape, best[1]);
  choice.backend = prefer_onednn(choice.mkl_gflops, choice.onednn_gflops) ? GemmBackend::onednn : GemmBackend::mkl;
  return choice;
}

std::vector<GemmChoice> measure_gemm_choices(const std::vector<GemmShape>& shapes,
                                             const std::function<GemmChoice(const GemmShape&)>& measure) {
  std::vector<GemmChoice> best;
  for (const auto& shape : shapes) best.push_back(measure(shape));
  for (size_t i = shapes.size(); i-- > 0;) {
    const GemmChoice again = measure(shapes[i]);
    best[i].mkl_gflops = std::max(best[i].mkl_gflops, again.mkl_gflops);
    best[i].onednn_gflops = std::max(best[i].onednn_gflops, again.onednn_gflops);
    best[i].backend = prefer_onednn(best[i].mkl_gflops, best[i].onednn_gflops) ? GemmBackend::onednn : GemmBackend::mkl;
  }
  return best;
}

void set_gemm_choices(std::vector<GemmChoice> choices) {
  choice_table() = std::move(choices);
  const size_t n = choice_table().size();
  shape_tallies().ns = std::vector<std::atomic<int64_t>>(n);  // value-initialised: zero
  shape_tallies().calls = std::vector<std::atomic<int64_t>>(n);
}
const std::vector<GemmChoice>& gemm_choices() { return choice_table(); }

void pin_gemm_backend(std::optional<GemmBackend> backend) { pinned_backend() = backend; }
bool gemm_dispatch_active() { return pinned_backend() || !choice_table().empty(); }

std::optional<GemmBackend> parse_gemm_backend(const std::string& name) {
  if (name == "mkl") return GemmBackend::mkl;
  if (name == "onednn") return GemmBackend::onednn;
  return std::nullopt;
}

GemmBackend gemm_backend_for(const GemmShape& shape) {
  if (pinned_backend()) return *pinned_backend();
  const auto i = choice_index(shape);
  return i ? choice_table()[*i].backend : GemmBackend::mkl;
}

torch::Tensor onednn_mm_through_linear_op(const torch::Tensor& a, const torch::Tensor& b) {
  using Signature = at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&, c10::string_view,
                               c10::List<std::optional<c10::Scalar>>, std::optional<c10::string_view>);
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn::_linear_pointwise", "").typed<Signature>();
  torch::NoGradGuard no_grad;  // the op has no autograd formula; callers run it inside their own
  return op.call(a, b.t(), std::nullopt, "none", c10::List<std::optional<c10::Scalar>>(), std::nullopt);
}

bool onednn_accumulates() { return onednn_matmul_refusal().empty(); }

std::string onednn_entry() {
  return onednn_matmul_refusal().empty()
             ? "mkldnn_matmul"
             : "mkldnn::_linear_pointwise (mkldnn_matmul refused: " + onednn_matmul_refusal() + ")";
}

torch::Tensor dispatched_mm_on(GemmBackend backend, const torch::Tensor& a, const torch::Tensor& b) {
  if (backend == GemmBackend::mkl) return at::mm(a, b);
  if (!onednn_matmul_refusal().empty()) return onednn_mm_through_linear_op(a, b);
  auto out = torch::empty({a.size(0), b.size(1)}, a.options());
  at::native::mkldnn_matmul(as_operand(a), as_operand(b), out, /*beta=*/0.0f, /*alpha=*/1.0f);
  return out;
}

torch::Tensor dispatched_mm(const torch::Tensor& a, const torch::Tensor& b) {
  const auto a_ = as_operand(a), b_ = as_operand(b);
  const GemmShape shape = shape_of(a_, b_);
  return tallied(shape, [&] { return dispatched_mm_on(gemm_backend_for(shape), a_, b_); });
}

GemmTally gemm_tally() {
  return {static_cast<double>(tally_ns.load(std::memory_order_relaxed)) / 1e9,
          static_cast<double>(tally_flops.load(std::memory_order_relaxed))};
}

std::vector<GemmTally> gemm_tally_by_shape() {
  std::vector<GemmTally> out;
  const auto& table = choice_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const auto& s = table[i].shape;
    const auto calls = static_cast<double>(shape_tallies().calls[i].load(std::memory_order_relaxed));
    out.push_back({static_cast<double>(shape_tallies().ns[i].load(std::memory_order_relaxed)) / 1e9,
                   calls * 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k)});
  }
  return out;
}

namespace {

// dW = dyᵀ·x; added by the GEMM straight into w's .grad where w is registered for it (returning
// an undefined tensor, which autograd's accumulator skips), else returned: MKL with beta = 1,
// oneDNN through mkldnn_matmul's sum post-op. Where this libtorch refuses mkldnn_matmul, oneDNN's
// linear op has no accumulating form: products chosen for it return their gradient.
torch::Tensor weight_gradient(const torch::Tensor& dy, const torch::Tensor& x, const torch::Tensor& w) {
  const auto dy_t = dy.t();
  const GemmShape shape = shape_of(dy_t, x);
  const GemmBackend backend = gemm_backend_for(shape);
  if (backend == GemmBackend::mkl || onednn_accumulates())
    if (auto grad = grad_to_accumulate_into(w, dy.scalar_type()); grad.defined()) {
      tallied(shape, [&] {
        if (backend == GemmBackend::mkl) return grad.addmm_(dy_t, x);
        at::native::mkldnn_matmul(as_operand(dy_t), as_operand(x), grad, /*beta=*/1.0f, /*alpha=*/1.0f);
        return grad;
      });
      return {};
    }
  return dispatched_mm(dy_t, x);
}

struct DispatchedLinear : torch::autograd::Function<DispatchedLinear> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& w,
                               const torch::Tensor& b) {
    // `b` is empty for a layer without bias: autograd functions take no undefined tensors.
    ctx->save_for_backward({x, w});
    ctx->saved_data["has_bias"] = b.numel() > 0;
    // On MKL the bias goes into the GEMM (one addmm), as ATen's linear does.
    const bool has_bias = b.numel() > 0;
    const GemmShape shape = shape_of(x, w.t());
    return tallied(shape, [&] {
      if (gemm_backend_for(shape) == GemmBackend::mkl) return has_bias ? at::addmm(b, x, w.t()) : at::mm(x, w.t());
      auto y = dispatched_mm_on(GemmBackend::onednn, x, w.t());
      if (has_bias) y.add_(b);
      return y;
    });
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& w = saved[1];
    const auto dy = grads[0].contiguous();
    torch::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) dx = dispatched_mm(dy, w);
    if (ctx->needs_input_grad(1)) dw = weight_gradient(dy, x, w);
    if (ctx->saved_data["has_bias"].toBool() && ctx->needs_input_grad(2)) db = dy.sum(0);
    return {dx, dw, db};
  }
};

}  // namespace

torch::Tensor dispatched_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  const auto rows = x.reshape({-1, x.size(-1)}).contiguous();
  auto sizes = x.sizes().vec();
  sizes.back() = weight.size(0);
  const auto b = bias.defined() ? bias : torch::empty({0}, weight.options());
  return DispatchedLinear::apply(rows, weight, b).view(sizes);
}

}  // namespace mt
