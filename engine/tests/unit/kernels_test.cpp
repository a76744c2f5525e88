#include "torch_doctest.h"

#include <ATen/Parallel.h>

#include <set>

#include "kernels/isa.h"
#include "model/causal_attention.h"
#include "model/cross_entropy.h"
#include "model/gelu.h"

namespace {

// Every kernel copy this CPU can run: the baseline one always, the x86-64-v3 one where supported.
std::vector<mt::KernelIsa> runnable_isas() {
  std::vector<mt::KernelIsa> out = {mt::KernelIsa::baseline};
  if (mt::best_kernel_isa() == mt::KernelIsa::x86_64_v3) out.push_back(mt::KernelIsa::x86_64_v3);
  return out;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

struct LossAndGrad {
  torch::Tensor loss, grad;
};

template <typename Loss>
LossAndGrad loss_and_grad(const torch::Tensor& logits, const torch::Tensor& targets, Loss loss_fn) {
  auto x = logits.detach().clone().requires_grad_(true);
  auto loss = loss_fn(x, targets);
  (loss * 3.0).backward();  // a non-unit upstream gradient
  return {loss.detach(), x.grad()};
}

}  // namespace

TEST_CASE("fused cross-entropy matches log_softmax + nll_loss in value and gradient") {
  torch::manual_seed(5);
  // 4096 fills whole vectors; 37 leaves a tail in every row.
  for (int64_t vocab : {4096, 37}) {
    auto logits = torch::randn({96, vocab}) * 4;
    auto targets = torch::randint(0, vocab, {96}, torch::kLong);
    const auto expected = loss_and_grad(logits, targets, [](auto& x, auto& t) {
      return torch::nn::functional::cross_entropy(x, t);
    });
    for (auto isa : runnable_isas()) {
      CAPTURE(mt::kernel_isa_name(isa));
      CAPTURE(vocab);
      mt::KernelIsaOverride pin(isa);
      const auto fused = loss_and_grad(logits, targets, mt::softmax_cross_entropy);
      CHECK(fused.loss.item<double>() == doctest::Approx(expected.loss.item<double>()).epsilon(1e-6));
      CHECK(max_abs_diff(fused.grad, expected.grad) <= 1e-7);
    }
  }
}

TEST_CASE("fused cross-entropy widens bf16 logits and keeps non-finite values visible") {
  auto logits = torch::randn({8, 50});
  auto targets = torch::randint(0, 50, {8}, torch::kLong);
  auto half = logits.to(torch::kBFloat16).requires_grad_(true);
  auto loss = mt::softmax_cross_entropy(half, targets);
  loss.backward();
  CHECK((loss.scalar_type() == torch::kFloat));
  CHECK((half.grad().scalar_type() == torch::kBFloat16));
  CHECK(loss.item<double>() ==
        doctest::Approx(torch::nn::functional::cross_entropy(half.to(torch::kFloat), targets)
                            .item<double>())
            .epsilon(1e-5));

  auto poisoned = logits.clone();
  poisoned[3][7] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(mt::softmax_cross_entropy(poisoned, targets).item<double>()));
  poisoned[3][7] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(std::isfinite(mt::softmax_cross_entropy(poisoned, targets).item<double>()));
}

TEST_CASE("fused cross-entropy rejects bad shapes and out-of-range targets") {
  auto logits = torch::randn({4, 10});
  CHECK_THROWS_WITH_AS(mt::softmax_cross_entropy(logits, torch::tensor({1, 2, 10, 3})),
                       doctest::Contains("target 10 at row 2 is outside [0, 10)"), c10::Error);
  CHECK_THROWS_WITH_AS(mt::softmax_cross_entropy(logits, torch::tensor({1, 2})),
                       doctest::Contains("expected logits [N, V] and targets [N]"), c10::Error);
}

TEST_CASE("fused GELU matches torch::gelu in value and gradient") {
  // 100,001 points over [-12, 12]: both tails, zero, and a partial last vector.
  auto x = torch::linspace(-12, 12, 100001);
  auto upstream = torch::randn({100001});
  auto reference = x.clone().requires_grad_(true);
  auto expected = torch::gelu(reference);
  expected.backward(upstream);
  for (auto isa : runnable_isas()) {
    CAPTURE(mt::kernel_isa_name(isa));
    mt::KernelIsaOverride pin(isa);
    auto input = x.clone().requires_grad_(true);
    auto y = mt::erf_gelu(input);
    y.backward(upstream);
    CHECK(max_abs_diff(y, expected) <= 1e-6);
    CHECK(max_abs_diff(input.grad(), reference.grad()) <= 2e-6);
  }
  // Strided input goes through a contiguous copy; NaN stays NaN.
  auto matrix = torch::randn({64, 33});
  CHECK(max_abs_diff(mt::erf_gelu(matrix.t()), torch::gelu(matrix.t())) <= 1e-6);
  CHECK(std::isnan(mt::erf_gelu(torch::tensor({std::nanf("")})).item<float>()));
}

TEST_CASE("a pinned kernel instruction set lasts as long as its guard") {
  const auto best = mt::best_kernel_isa();
  CHECK((mt::kernel_isa() == best));
  {
    mt::KernelIsaOverride pin(mt::KernelIsa::baseline);
    CHECK((mt::kernel_isa() == mt::KernelIsa::baseline));
  }
  CHECK((mt::kernel_isa() == best));
}

TEST_CASE("fused causal attention matches the composite formulation in value and gradient") {
  torch::manual_seed(8);
  struct Shape {
    int64_t batch, seq, d, heads;
  };
  // Head sizes 12 and 64; sequence lengths that do and do not fill whole vectors.
  for (const Shape& s : {Shape{2, 37, 48, 4}, Shape{3, 128, 256, 4}, Shape{1, 1, 16, 2}}) {
    CAPTURE(s.seq);
    CAPTURE(s.d);
    auto qkv = torch::randn({s.batch, s.seq, 3 * s.d});
    auto upstream = torch::randn({s.batch, s.seq, s.d});
    auto reference_input = qkv.clone().requires_grad_(true);
    auto expected = mt::composite_causal_attention(reference_input, s.heads, 0.0, true);
    expected.backward(upstream);
    for (auto isa : runnable_isas()) {
      CAPTURE(mt::kernel_isa_name(isa));
      mt::KernelIsaOverride pin(isa);
      auto input = qkv.clone().requires_grad_(true);
      auto y = mt::causal_attention(input, s.heads, 0.0, true);
      y.backward(upstream);
      CHECK(max_abs_diff(y, expected) <= 1e-5);
      CHECK(max_abs_diff(input.grad(), reference_input.grad()) <= 1e-5);
    }
  }
}

TEST_CASE("causal attention never lets a position see a later one") {
  auto qkv = torch::randn({2, 20, 3 * 32});
  auto changed = qkv.clone();
  changed.select(1, 19).normal_();  // only the last position's q, k and v
  auto a = mt::causal_attention(qkv, 4, 0.0, false), b = mt::causal_attention(changed, 4, 0.0, false);
  using torch::indexing::Slice;
  CHECK(torch::equal(a.index({Slice(), Slice(0, 19)}), b.index({Slice(), Slice(0, 19)})));
  CHECK_FALSE(torch::equal(a.select(1, 19), b.select(1, 19)));
}

TEST_CASE("attention dropout takes the composite path and is active only in training") {
  torch::manual_seed(3);
  auto qkv = torch::randn({2, 16, 3 * 32}).requires_grad_(true);
  auto eval = mt::causal_attention(qkv, 4, 0.5, /*training=*/false);
  CHECK(max_abs_diff(eval, mt::causal_attention(qkv, 4, 0.0, true)) <= 1e-6);
  auto trained = mt::causal_attention(qkv, 4, 0.5, /*training=*/true);
  CHECK(max_abs_diff(trained, eval) > 1e-3);
  trained.sum().backward();
  CHECK(qkv.grad().abs().sum().item<double>() > 0);
  CHECK_THROWS_AS(mt::causal_attention(torch::randn({2, 4, 30}), 4, 0.0, false), c10::Error);
}

TEST_CASE("the engine's own parallel_for loops use every intra-op thread") {
  // ATen's parallel_for is a header template: compiled without OpenMP it silently runs serially,
  // which is what the fused optimizer and kernels would then do.
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  std::vector<int> seen(64, -1);
  at::parallel_for(0, 64, 1, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) seen[static_cast<std::size_t>(i)] = at::get_thread_num();
  });
  at::set_num_threads(before);
  CHECK(std::set<int>(seen.begin(), seen.end()) == std::set<int>{0, 1});
}
