#include "torch_doctest.h"

#include "float_bounds.h"
#include "core/kernels/isa.h"
#include "training/optim/fused_adamw.h"

namespace {

// Same initial values for both optimizers; sizes span several chunks and tiny tensors.
std::vector<torch::Tensor> make_parameters() {
  torch::manual_seed(11);
  std::vector<torch::Tensor> out;
  for (int64_t n : {3, 256, 70000, 100001}) out.push_back(torch::randn({n}) * 0.1);
  out.push_back(torch::randn({64, 48}) * 0.1);
  for (auto& t : out) t.requires_grad_(true);
  return out;
}

std::vector<torch::Tensor> clone_all(const std::vector<torch::Tensor>& ts) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back(t.detach().clone().requires_grad_(true));
  return out;
}

}  // namespace

TEST_CASE("fused AdamW follows torch::optim::AdamW step by step") {
  for (auto isa : mt::runnable_kernel_isas()) {
    CAPTURE(std::string(mt::kernel_isa_name(isa)));
    mt::KernelIsaOverride pin(isa);
    auto reference = make_parameters();
    auto fused_params = clone_all(reference);
    torch::optim::AdamW torch_adamw(reference, torch::optim::AdamWOptions(1e-3));
    mt::FusedAdamW fused(fused_params, mt::FusedAdamWOptions{});
    CHECK(fused.lr() == doctest::Approx(1e-3));

    // Each step moves a parameter by about lr (Adam's normalised update) and rounds it: the two
    // optimizers may differ by a few eps of the parameter and of every step taken so far (fused
    // multiply-adds and vector widths round differently).
    double steps_taken = 0;
    for (int step = 0; step < 8; ++step) {
      const double lr = step < 4 ? 1e-3 : 3e-2 / (step + 1);  // the trainer changes lr per step
      const double scale = step == 5 ? 0.25 : 1.0;            // a clipped step
      steps_taken += lr;
      for (auto& group : torch_adamw.param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
      fused.set_lr(lr);
      for (std::size_t i = 0; i < reference.size(); ++i) {
        // The last tensor has no gradient on odd steps: both must skip it, step count included.
        if (i + 1 == reference.size() && step % 2 == 1) {
          reference[i].mutable_grad() = torch::Tensor();
          fused_params[i].mutable_grad() = torch::Tensor();
          continue;
        }
        auto grad = torch::randn(reference[i].sizes()) * (step + 1);
        reference[i].mutable_grad() = grad * scale;
        fused_params[i].mutable_grad() = grad.clone();
      }
      torch_adamw.step();
      fused.step(scale);
      for (std::size_t i = 0; i < reference.size(); ++i) {
        const auto tolerance =
            16 * mt::testing::kFloatEps * (reference[i].detach().to(torch::kDouble).abs() + steps_taken);
        CHECK(mt::testing::worst_error_ratio(fused_params[i], reference[i], tolerance) <= 1.0);
      }
    }
    int64_t torch_state = 0;
    for (const auto& entry : torch_adamw.state()) {
      const auto& s = static_cast<const torch::optim::AdamWParamState&>(*entry.second);
      torch_state += static_cast<int64_t>(s.exp_avg().nbytes() + s.exp_avg_sq().nbytes());
    }
    CHECK(fused.state_bytes() == torch_state);
  }
}

TEST_CASE("fused AdamW refuses non-contiguous parameters") {
  auto t = torch::zeros({4, 4}).t().requires_grad_(true);
  CHECK_THROWS_AS(mt::FusedAdamW({t}, mt::FusedAdamWOptions{}), std::invalid_argument);
}

TEST_CASE("fused AdamW clearing the gradients steps exactly as without, and leaves every gradient zero") {
  for (auto isa : mt::runnable_kernel_isas()) {
    CAPTURE(std::string(mt::kernel_isa_name(isa)));
    mt::KernelIsaOverride pin(isa);
    auto keeping = make_parameters();
    auto clearing = clone_all(keeping);
    mt::FusedAdamW keeps(keeping, mt::FusedAdamWOptions{});
    mt::FusedAdamW clears(clearing, mt::FusedAdamWOptions{});
    for (int step = 0; step < 3; ++step) {
      for (std::size_t i = 0; i < keeping.size(); ++i) {
        auto grad = torch::randn(keeping[i].sizes());
        keeping[i].mutable_grad() = grad;
        clearing[i].mutable_grad() = grad.clone();
      }
      const double scale = step == 1 ? 0.5 : 1.0;
      CHECK_FALSE(keeps.step(scale));
      CHECK(clears.step(scale, /*clear_gradients=*/true));
      for (std::size_t i = 0; i < keeping.size(); ++i) {
        // One arithmetic, one order: bit for bit, moments included.
        CHECK(torch::equal(clearing[i].detach(), keeping[i].detach()));
        CHECK(clearing[i].grad().count_nonzero().item<int64_t>() == 0);
        CHECK(keeping[i].grad().count_nonzero().item<int64_t>() == keeping[i].numel());
      }
      const auto a = keeps.state(), b = clears.state();
      REQUIRE(a.size() == b.size());
      for (std::size_t k = 0; k < a.size(); ++k) CHECK(torch::equal(a[k].tensor, b[k].tensor));
    }
  }
}
