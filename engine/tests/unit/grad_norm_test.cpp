// The squared global gradient norm: every kernel copy the CPU runs sums squares in double to
// within n·eps(double) of the exact sum, keeps non-finite values visible, and the norm over
// parameters skips those without a gradient and agrees with ATen's where it falls back to it.
#include "torch_doctest.h"

#include <ATen/Parallel.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/isa.h"
#include "core/kernels/sum_of_squares_kernel.h"
#include "training/optim/grad_norm.h"

namespace {

// Σ x² in float64; each float's square is exact in double.
double exact_sum(const torch::Tensor& x) { return x.to(torch::kDouble).pow(2).sum().item<double>(); }

}  // namespace

TEST_CASE("sum of squares: every kernel copy, whole vectors and a tail, within the summation bound") {
  torch::manual_seed(13);
  for (int64_t n : {int64_t{0}, int64_t{5}, int64_t{64}, int64_t{100003}}) {
    const auto x = torch::randn({n}) * 3;
    const double expected = exact_sum(x);
    for (auto isa : mt::runnable_kernel_isas()) {
      CAPTURE(std::string(mt::kernel_isa_name(isa)));
      CAPTURE(n);
      mt::KernelIsaOverride pin(isa);
      const double sum = mt::sum_of_squares(x.data_ptr<float>(), n);
      // n additions of positive terms, each rounding by at most eps(double)/2 of the running sum.
      CHECK(std::abs(sum - expected) <= static_cast<double>(n) * DBL_EPSILON * expected);
      // A dropped element or tail misses it by far more.
      if (n > 0) CHECK(std::abs(mt::sum_of_squares(x.data_ptr<float>(), n - 1) - expected) > 1e-6 * expected / n);
    }
  }
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto x = torch::randn({1000});
    x[777] = bad;
    for (auto isa : mt::runnable_kernel_isas()) {
      mt::KernelIsaOverride pin(isa);
      CHECK_FALSE(std::isfinite(mt::sum_of_squares(x.data_ptr<float>(), 1000)));
    }
  }
}

TEST_CASE("squared gradient norm: over every gradient, the same at any thread count, ATen's where it falls back") {
  torch::manual_seed(17);
  // Sizes past one chunk (65,536 elements) and below it; one parameter without a gradient.
  std::vector<torch::Tensor> parameters = {torch::zeros({300, 700}), torch::zeros({513}), torch::zeros({8, 8}),
                                           torch::zeros({200000})};
  double expected = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    parameters[i].requires_grad_(true);
    if (i == 2) continue;
    parameters[i].mutable_grad() = torch::randn(parameters[i].sizes());
    expected += exact_sum(parameters[i].grad());
  }
  const int threads = at::get_num_threads();
  const auto total = mt::squared_gradient_norm(parameters, torch::kCPU);
  CHECK((total.scalar_type() == torch::kDouble));
  CHECK(std::abs(total.item<double>() - expected) <= 1e-12 * expected);
  at::set_num_threads(1);
  CHECK(mt::squared_gradient_norm(parameters, torch::kCPU).item<double>() == total.item<double>());
  at::set_num_threads(threads);
  // A strided gradient takes ATen's per-tensor norms: float32 norms, within float32 rounding.
  parameters[0].mutable_grad() = torch::randn({700, 300}).t();
  double strided_expected = 0;
  for (const auto& p : parameters)
    if (p.grad().defined()) strided_expected += exact_sum(p.grad());
  CHECK(std::abs(mt::squared_gradient_norm(parameters, torch::kCPU).item<double>() - strided_expected) <=
        1e-5 * strided_expected);
  // None with a gradient: zero; a non-finite gradient: a non-finite norm.
  CHECK(mt::squared_gradient_norm({torch::zeros({3}).requires_grad_(true)}, torch::kCPU).item<double>() == 0.0);
  parameters[3].mutable_grad()[12345] = std::numeric_limits<float>::quiet_NaN();
  parameters[0].mutable_grad() = torch::randn({300, 700});
  CHECK(std::isnan(mt::squared_gradient_norm(parameters, torch::kCPU).item<double>()));
}
