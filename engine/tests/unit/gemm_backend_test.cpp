// Both GEMM backends compute the dense layers' products: against float64 within the standard
// error bound of a k-term dot product (|error| <= k·eps·(|A|·|B|), elementwise: whatever the
// blocking, ISA or summation order), for every operand layout a layer uses, through autograd; the
// tally of a layer's products counts each one.
#include "torch_doctest.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "float_bounds.h"
#include "pinned_gemm_backend.h"
#include "training/model/gemm_backend.h"
#include "training/trainer/gemm_setup.h"

namespace {

using mt::GemmBackend;
using mt::testing::kFloatEps;
using mt::testing::PinnedGemmBackend;
using mt::testing::worst_error_ratio;

// The bound for C = A·B computed in float32, from float64 copies of the operands.
torch::Tensor product_bound(const torch::Tensor& a, const torch::Tensor& b) {
  const auto k = static_cast<double>(a.size(1));
  return k * kFloatEps * a.to(torch::kDouble).abs().mm(b.to(torch::kDouble).abs()) + 1e-30;
}

double worst_product_error(const torch::Tensor& c, const torch::Tensor& a, const torch::Tensor& b) {
  return worst_error_ratio(c, a.to(torch::kDouble).mm(b.to(torch::kDouble)), product_bound(a, b));
}

}  // namespace

TEST_CASE("gemm backends: every operand layout a layer uses, within the dot-product error bound") {
  torch::manual_seed(3);
  const int64_t m = 96, n = 80, k = 136;
  using Product = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;
  auto on = [](GemmBackend backend) -> Product {
    return [backend](const torch::Tensor& a, const torch::Tensor& b) { return mt::dispatched_mm_on(backend, a, b); };
  };
  // oneDNN's linear-layer entry runs on every CPU; `onednn` takes it only where ATen refuses its
  // direct matmul (AVX2 CPUs), so it is checked on its own too.
  const std::pair<std::string, Product> products[] = {{"mkl", on(GemmBackend::mkl)},
                                                      {"onednn (" + mt::onednn_entry() + ")", on(GemmBackend::onednn)},
                                                      {"onednn linear op", mt::onednn_mm_through_linear_op}};
  for (const auto& [label, product] : products) {
    const std::string name = label;
    CAPTURE(name);
    const auto a = torch::randn({m, k}), b = torch::randn({k, n});
    const auto a_t = torch::randn({k, m}).t(), b_t = torch::randn({n, k}).t();  // transposed views
    CHECK(worst_product_error(product(a, b), a, b) <= 1.0);
    CHECK(worst_product_error(product(a, b_t), a, b_t) <= 1.0);
    CHECK(worst_product_error(product(a_t, b), a_t, b) <= 1.0);
    CHECK(worst_product_error(product(a_t, b_t), a_t, b_t) <= 1.0);
    // A wrong product misses the bound by far: the bound is not vacuous.
    CHECK(worst_product_error(product(a, b_t), a, b_t.contiguous().flip(0)) > 100.0);
  }
}

TEST_CASE("gemm backends: a dense layer's output and gradients match ATen's linear on either backend") {
  torch::manual_seed(5);
  const auto x0 = torch::randn({3, 40, 64}), w0 = torch::randn({48, 64}) * 0.1, b0 = torch::randn({48});
  const auto grad_out = torch::randn({3, 40, 48});
  auto reference = [&](bool with_bias) {
    auto x = x0.to(torch::kDouble).requires_grad_(true), w = w0.to(torch::kDouble).requires_grad_(true);
    auto b = b0.to(torch::kDouble).requires_grad_(true);
    auto y = torch::linear(x, w, with_bias ? b : torch::Tensor());
    y.backward(grad_out.to(torch::kDouble));
    return std::vector<torch::Tensor>{y.detach(), x.grad(), w.grad(), with_bias ? b.grad() : torch::Tensor()};
  };
  for (GemmBackend backend : {GemmBackend::mkl, GemmBackend::onednn}) {
    for (bool with_bias : {true, false}) {
      const std::string name = mt::gemm_backend_name(backend);
      CAPTURE(name);
      CAPTURE(with_bias);
      PinnedGemmBackend pinned(backend);
      REQUIRE(mt::gemm_dispatch_active());
      auto x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true),
           b = b0.clone().requires_grad_(true);
      const mt::GemmTally before = mt::gemm_tally();
      auto y = mt::dispatched_linear(x, w, with_bias ? b : torch::Tensor());
      y.backward(grad_out);
      const mt::GemmTally after = mt::gemm_tally();
      // Three products (y, dx, dW) of 2·120·48·64 FLOPs each are counted, and timed.
      CHECK(after.flops - before.flops == 3 * 2.0 * 120 * 48 * 64);
      CHECK(after.seconds > before.seconds);
      const auto expected = reference(with_bias);
      CHECK(y.sizes() == torch::IntArrayRef({3, 40, 48}));
      // Each element is a dot product: bounded by its term count times eps times the sum of
      // its terms' magnitudes.
      const auto ax = x0.reshape({-1, 64}).to(torch::kDouble).abs(), aw = w0.to(torch::kDouble).abs();
      const auto ag = grad_out.reshape({-1, 48}).to(torch::kDouble).abs();
      const double eps = kFloatEps;
      const auto y_bound = 65 * eps * (ax.mm(aw.t()) + b0.to(torch::kDouble).abs() * with_bias) + 1e-30;
      CHECK(worst_error_ratio(y.reshape({-1, 48}), expected[0].reshape({-1, 48}), y_bound) <= 1.0);
      CHECK(worst_error_ratio(x.grad().reshape({-1, 64}), expected[1].reshape({-1, 64}),
                              48 * eps * ag.mm(aw) + 1e-30) <= 1.0);
      CHECK(worst_error_ratio(w.grad(), expected[2], 120 * eps * ag.t().mm(ax) + 1e-30) <= 1.0);
      if (with_bias) CHECK(worst_error_ratio(b.grad(), expected[3], 120 * eps * ag.sum(0) + 1e-30) <= 1.0);
      else CHECK_FALSE(b.grad().defined());
    }
  }
}

TEST_CASE("gemm backends: the table decides per shape, a pin overrides it, names parse") {
  const auto shapes = mt::linear_layer_shapes(512, 256, 768);
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].text() == "512×768×256 (A·Bᵀ)");  // y = x·Wᵀ
  CHECK(shapes[1].text() == "512×256×768 (A·B)");   // dx = dy·W
  CHECK(shapes[2].text() == "768×256×512 (Aᵀ·B)");  // dW = dyᵀ·x
  mt::set_gemm_choices({{shapes[0], GemmBackend::onednn, 1, 2, false}});
  CHECK(mt::gemm_dispatch_active());
  CHECK(mt::gemm_backend_for(shapes[0]) == GemmBackend::onednn);
  CHECK(mt::gemm_backend_for(shapes[1]) == GemmBackend::mkl);  // not in the table
  {
    PinnedGemmBackend pinned(GemmBackend::mkl);
    CHECK(mt::gemm_backend_for(shapes[0]) == GemmBackend::mkl);
  }
  mt::set_gemm_choices({});
  CHECK_FALSE(mt::gemm_dispatch_active());
  CHECK(mt::prefer_onednn(300, 330));
  CHECK_FALSE(mt::prefer_onednn(300, 310));  // within timing noise: MKL stays
  CHECK(mt::parse_gemm_backend("onednn") == GemmBackend::onednn);
  CHECK(mt::parse_gemm_backend("mkl") == GemmBackend::mkl);
  CHECK_FALSE(mt::parse_gemm_backend("blas").has_value());
}

TEST_CASE("gemm backends: each shape's speeds are the best of two passes, the second in reverse order") {
  const auto shapes = mt::linear_layer_shapes(512, 256, 768);
  // A load that comes for a moment: the first pass reads the first two shapes slow (as if on
  // another CPU), the second pass the last one. The passes' order is recorded.
  std::vector<std::string> order;
  int call = 0;
  const auto measure = [&](const mt::GemmShape& shape) {
    order.push_back(shape.text());
    const bool slowed = call < 2 || call == 3;
    ++call;
    mt::GemmChoice c;
    c.shape = shape;
    c.mkl_gflops = slowed ? 50 : 150;
    c.onednn_gflops = slowed ? 40 : 200;
    return c;
  };
  const auto choices = mt::measure_gemm_choices(shapes, measure);
  REQUIRE(choices.size() == 3);
  CHECK(order == std::vector<std::string>{shapes[0].text(), shapes[1].text(), shapes[2].text(), shapes[2].text(),
                                          shapes[1].text(), shapes[0].text()});
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(shapes[i].text());
    CHECK(choices[i].shape == shapes[i]);
    CHECK(choices[i].mkl_gflops == 150);
    CHECK(choices[i].onednn_gflops == 200);
    CHECK(choices[i].backend == GemmBackend::onednn);  // from the best readings, not the slowed ones
  }
}

TEST_CASE("gemm backends: a checkpoint records each shape's backend, and a resume takes it unless pinned") {
  const auto shapes = mt::linear_layer_shapes(512, 256, 768);
  mt::GemmChoice measured{shapes[0], GemmBackend::mkl, 300, 290};
  mt::GemmChoice also_measured{shapes[1], GemmBackend::mkl, 300, 290};
  mt::GemmChoice pinned{shapes[2], GemmBackend::mkl, 300, 290, /*pinned=*/true};
  mt::set_gemm_choices({measured, also_measured, pinned});
  auto entry = [](const std::string& shape, const std::string& backend) {
    return nlohmann::json{{"shape", shape}, {"backend", backend}};
  };
  CHECK(mt::gemm_backends_for_checkpoint() ==
        nlohmann::json::array(
            {entry(shapes[0].text(), "mkl"), entry(shapes[1].text(), "mkl"), entry(shapes[2].text(), "mkl")}));

  // The checkpoint was computed on oneDNN for the first and the pinned shape; entries it cannot
  // read, and shapes this run does not have, are passed over.
  const nlohmann::json recorded = nlohmann::json::array(
      {entry(shapes[0].text(), "onednn"), entry(shapes[1].text(), "blas"), entry(shapes[2].text(), "onednn"),
       entry("1×1×1 (A·B)", "onednn"), nlohmann::json{{"backend", "onednn"}}, 7});
  CHECK(mt::adopt_checkpoint_gemm_backends(recorded) == std::vector<std::string>{shapes[2].text()});
  CHECK(mt::gemm_backend_for(shapes[0]) == GemmBackend::onednn);
  CHECK(mt::gemm_backend_for(shapes[1]) == GemmBackend::mkl);
  CHECK(mt::gemm_backend_for(shapes[2]) == GemmBackend::mkl);  // --gemm-backend holds
  const nlohmann::json described = mt::gemm_backends_json();
  CHECK(described[0]["chosen_by"] == "checkpoint");
  CHECK(described[1]["chosen_by"] == "measured");
  CHECK(described[2]["chosen_by"] == "--gemm-backend");
  // A checkpoint that records none (an older mtengine) changes nothing.
  CHECK(mt::adopt_checkpoint_gemm_backends(nullptr).empty());
  CHECK(mt::gemm_backend_for(shapes[0]) == GemmBackend::onednn);
  mt::set_gemm_choices({});
  CHECK(mt::gemm_backends_for_checkpoint().is_null());  // no table: nothing to record
}
