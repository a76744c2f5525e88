#include "torch_doctest.h"

#include <ATen/Parallel.h>

#include <limits>
#include <set>

#include "float_bounds.h"
#include "core/kernels/attention_kernel.h"
#include "core/kernels/small_gemm_kernel.h"
#include "core/kernels/isa.h"
#include "training/model/causal_attention.h"
#include "training/model/cross_entropy.h"
#include "training/model/gelu.h"

namespace {

using mt::testing::kFloatEps;
using mt::testing::max_magnitude;
using mt::testing::worst_error_ratio;

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
    const int64_t rows = 96;
    auto logits = torch::randn({rows, vocab}) * 4;
    auto targets = torch::randint(0, vocab, {rows}, torch::kLong);
    const auto expected =
        loss_and_grad(logits, targets, [](auto& x, auto& t) { return torch::nn::functional::cross_entropy(x, t); });
    // Rounding an exponent's argument x - lse costs eps·(|x| + |lse|) of relative error in
    // softmax; subtracting the one-hot costs eps of the gradient's scale 3/N. The loss is
    // lse - x[target]: eps·(|lse| + |x|) per row, and the mean keeps that size.
    const auto x = logits.to(torch::kDouble);
    const auto lse = torch::logsumexp(x, 1, /*keepdim=*/true);
    const double scale = 3.0 / static_cast<double>(rows);
    const auto grad_tolerance =
        4 * kFloatEps * (expected.grad.to(torch::kDouble).abs() * (x.abs() + lse.abs() + 2) + scale);
    const double loss_tolerance = 8 * kFloatEps * (2 * max_magnitude(x) + std::log(vocab) + 1);
    for (auto isa : mt::runnable_kernel_isas()) {
      CAPTURE(std::string(mt::kernel_isa_name(isa)));
      CAPTURE(vocab);
      mt::KernelIsaOverride pin(isa);
      const auto fused =
          loss_and_grad(logits, targets, [](auto& x, auto& t) { return mt::softmax_cross_entropy(x, t); });
      CHECK(worst_error_ratio(fused.loss, expected.loss, loss_tolerance) <= 1.0);
      CHECK(worst_error_ratio(fused.grad, expected.grad, grad_tolerance) <= 1.0);
    }
  }
}

TEST_CASE("fused cross-entropy's gradient may take the logits' place: the same values, no new buffer") {
  torch::manual_seed(9);
  const auto logits = torch::randn({40, 300}) * 3;
  const auto targets = torch::randint(0, 300, {40}, torch::kLong);
  for (auto isa : mt::runnable_kernel_isas()) {
    CAPTURE(std::string(mt::kernel_isa_name(isa)));
    mt::KernelIsaOverride pin(isa);
    auto kept_input = logits.clone().requires_grad_(true);
    auto kept = kept_input * 1.0f;  // a non-leaf, as the model's logits are
    kept.retain_grad();
    (mt::softmax_cross_entropy(kept, targets) * 3.0).backward();
    CHECK(torch::equal(kept.detach(), logits));  // kept: untouched

    auto reused_input = logits.clone().requires_grad_(true);
    auto reused = reused_input * 1.0f;
    reused.retain_grad();
    (mt::softmax_cross_entropy(reused, targets, mt::LogitsAfterBackward::overwritten) * 3.0).backward();
    CHECK(torch::equal(reused.grad(), kept.grad()));    // the same kernel, the same values
    CHECK(torch::equal(reused.detach(), kept.grad()));  // written over the logits
    CHECK(torch::equal(reused_input.grad(), kept_input.grad()));
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
        doctest::Approx(torch::nn::functional::cross_entropy(half.to(torch::kFloat), targets).item<double>())
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
  // GELU(x) = x·Φ(x): Φ's error is absolute (our erfc approximation's 1.5e-7, about 0.6 eps in Φ,
  // ATen's erf and the roundings, about 3 eps in all), and x multiplies it, so the value's error
  // scales with |x|; the gradient dy·(Φ + x·φ) likewise with |dy|·(1 + |x|). The bound is twice
  // that sum; FLT_MIN keeps it positive where both sides are exactly 0.
  const auto xd = x.to(torch::kDouble);
  const auto value_tolerance = 8 * kFloatEps * xd.abs() + FLT_MIN;
  const auto grad_tolerance = 8 * kFloatEps * upstream.to(torch::kDouble).abs() * (1 + xd.abs()) + FLT_MIN;
  for (auto isa : mt::runnable_kernel_isas()) {
    CAPTURE(std::string(mt::kernel_isa_name(isa)));
    mt::KernelIsaOverride pin(isa);
    auto input = x.clone().requires_grad_(true);
    auto y = mt::erf_gelu(input);
    y.backward(upstream);
    CHECK(worst_error_ratio(y, expected, value_tolerance) <= 1.0);
    CHECK(worst_error_ratio(input.grad(), reference.grad(), grad_tolerance) <= 1.0);
  }
  // Strided input goes through a contiguous copy; NaN stays NaN.
  auto matrix = torch::randn({64, 33});
  const auto strided_tolerance = 8 * kFloatEps * matrix.t().to(torch::kDouble).abs() + FLT_MIN;
  CHECK(worst_error_ratio(mt::erf_gelu(matrix.t()), torch::gelu(matrix.t()), strided_tolerance) <= 1.0);
  CHECK(std::isnan(mt::erf_gelu(torch::tensor({std::nanf("")})).item<float>()));
}

TEST_CASE("a pinned kernel instruction set lasts as long as its guard") {
  const auto best = mt::best_kernel_isa();
  CHECK((mt::kernel_isa() == best));
  for (auto isa : mt::runnable_kernel_isas()) {
    mt::KernelIsaOverride pin(isa);
    CHECK((mt::kernel_isa() == isa));
  }
  CHECK((mt::kernel_isa() == best));
  CHECK((mt::runnable_kernel_isas().front() == mt::KernelIsa::baseline));
  CHECK((mt::runnable_kernel_isas().back() == best));
  for (auto isa : {mt::KernelIsa::baseline, mt::KernelIsa::x86_64_v3, mt::KernelIsa::x86_64_v4}) {
    CHECK((mt::parse_kernel_isa(mt::kernel_isa_name(isa)) == isa));
    if (isa > best) CHECK_THROWS_AS(mt::KernelIsaOverride{isa}, std::invalid_argument);
  }
  CHECK_FALSE(mt::parse_kernel_isa("avx512").has_value());
}

TEST_CASE("the small GEMM matches a float64 product on every kernel copy, skipping only what its triangle allows") {
  using mt::Triangle;
  torch::manual_seed(12);
  struct Case {
    Triangle triangle;
    int64_t m, n, k;
    bool a_transposed;  // A read as the transpose of a row-major [k × m] matrix (strides 1, m)
    bool b_transposed;  // B read as the transpose of a row-major [n × k] matrix, as kᵀ is
    int64_t diagonal = 0;
    bool add_to_c = false;
  };
  // Square where a triangle is named (its diagonal is i = j or i = p); sizes that leave partial
  // row tiles and partial column panels at every vector width, and ones that fill them. At 33 the
  // last tile's diagonal (row 32) opens a new panel at every width.
  const Case cases[] = {{Triangle::none, 7, 45, 5, false, false},
                        {Triangle::none, 7, 45, 5, false, true},
                        {Triangle::none, 64, 64, 64, true, false},
                        {Triangle::none, 1, 1, 1, false, false},
                        {Triangle::unused_c_upper, 37, 37, 12, false, false},
                        {Triangle::unused_c_upper, 37, 37, 12, false, true},
                        {Triangle::unused_c_upper, 33, 33, 12, false, false},
                        {Triangle::zero_a_upper, 37, 19, 37, false, false},
                        {Triangle::zero_a_lower, 37, 19, 37, true, false},
                        {Triangle::unused_c_upper, 96, 96, 64, false, false},
                        {Triangle::unused_c_upper, 96, 96, 64, false, true},
                        {Triangle::zero_a_lower, 96, 64, 96, true, false},
                        // One block of 13 queries from position 32 of a causal product: its
                        // scores (rows of C), its P v (rows of A), and Pᵀ dy of its rows (depth),
                        // added into C as a sum over blocks is; at 50 keys the last five rows
                        // have no depth at all.
                        {Triangle::unused_c_upper, 13, 45, 12, false, true, 32},
                        {Triangle::zero_a_upper, 13, 19, 45, false, false, 32},
                        {Triangle::zero_a_lower, 45, 19, 13, true, false, -32, true},
                        {Triangle::zero_a_lower, 50, 19, 13, true, false, -32, false},
                        {Triangle::none, 7, 45, 5, false, false, 0, true}};
  const float alpha = 0.37f;
  for (const auto& c : cases) {
    CAPTURE(static_cast<int>(c.triangle));
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    CAPTURE(c.b_transposed);
    CAPTURE(c.diagonal);
    CAPTURE(c.add_to_c);
    auto a = torch::randn({c.m, c.k});
    // The kernel may assume a named zero triangle of A: the reference has it too.
    if (c.triangle == Triangle::zero_a_upper) a = a.tril(c.diagonal);
    if (c.triangle == Triangle::zero_a_lower) a = a.triu(c.diagonal);
    const auto a_stored = c.a_transposed ? a.t().contiguous() : a;  // what the kernel reads
    // Rows padded: strides are honoured.
    const int64_t ldb = (c.b_transposed ? c.k : c.n) + 3, ldc = c.n + 5;
    const auto b_stored = torch::randn({c.b_transposed ? c.n : c.k, ldb});
    const auto b = c.b_transposed ? b_stored.narrow(1, 0, c.k).t() : b_stored.narrow(1, 0, c.n);
    const auto a64 = a.to(torch::kDouble), b64 = b.to(torch::kDouble);
    const auto c_before =
        c.add_to_c ? torch::randn({c.m, ldc}) : torch::full({c.m, ldc}, std::numeric_limits<float>::quiet_NaN());
    const auto c_old =
        c.add_to_c ? c_before.narrow(1, 0, c.n).to(torch::kDouble) : torch::zeros({c.m, c.n}, torch::kDouble);
    const auto expected = c_old + alpha * torch::matmul(a64, b64);
    // A dot product of k terms rounds at most k times, each by eps/2 of the partial sums, which
    // |A| |B| bounds; alpha's own product adds one more rounding, and adding into C one more.
    const auto tolerance = kFloatEps * (c.k + 1) * std::abs(alpha) * torch::matmul(a64.abs(), b64.abs()) +
                           kFloatEps * expected.abs() + 1e-30;
    const auto checked = c.triangle == Triangle::unused_c_upper
                             ? torch::ones({c.m, c.n}).tril(c.diagonal).to(torch::kBool)
                             : torch::ones({c.m, c.n}).to(torch::kBool);
    for (auto isa : mt::runnable_kernel_isas()) {
      CAPTURE(std::string(mt::kernel_isa_name(isa)));
      mt::KernelIsaOverride pin(isa);
      auto c_stored = c_before.clone();
      const mt::SmallGemmOperands operands{
          a_stored.data_ptr<float>(), c.a_transposed ? 1 : c.k, c.a_transposed ? c.m : 1,   b_stored.data_ptr<float>(),
          c.b_transposed ? 1 : ldb,   c.b_transposed ? ldb : 1, c_stored.data_ptr<float>(), ldc};
      mt::small_gemm(c.m, c.n, c.k, alpha, operands, {c.triangle, c.diagonal, c.add_to_c});
      const auto result = c_stored.narrow(1, 0, c.n);
      const auto ratio = (result.to(torch::kDouble) - expected).abs() / tolerance;
      CHECK(ratio.masked_select(checked).max().item<double>() <= 1.0);  // NaN (never written) fails too
      const auto past_n = c_stored.narrow(1, c.n, ldc - c.n);           // nothing written past column n
      CHECK((c.add_to_c ? past_n.equal(c_before.narrow(1, c.n, ldc - c.n)) : past_n.isnan().all().item<bool>()));

      // The same product from a B packed beforehand, larger than the product uses (its leading
      // k rows and n columns), as a head's kᵀ and v are packed once for all its query blocks.
      auto b_larger = torch::randn({c.k + 5, c.n + 9});
      b_larger.narrow(0, 0, c.k).narrow(1, 0, c.n).copy_(b);
      mt::SmallGemmPackedB packed;
      packed.pack(c.k + 5, c.n + 9, b_larger.data_ptr<float>(), c.n + 9, 1);
      auto c_from_packed = c_before.clone();
      const mt::SmallGemmOperands without_b{
          operands.a, operands.a_row_stride, operands.a_col_stride, nullptr, 0, 0, c_from_packed.data_ptr<float>(),
          ldc};
      mt::small_gemm(c.m, c.n, c.k, alpha, without_b, {c.triangle, c.diagonal, c.add_to_c, &packed});
      const auto from_packed_ratio = (c_from_packed.narrow(1, 0, c.n).to(torch::kDouble) - expected).abs() / tolerance;
      CHECK(from_packed_ratio.masked_select(checked).max().item<double>() <= 1.0);
    }
  }
}

TEST_CASE("the small GEMM refuses a packed B smaller than the product or packed for another kernel copy") {
  auto b = torch::randn({8, 20});
  auto a = torch::randn({6, 9});
  auto c = torch::empty({6, 21});
  mt::SmallGemmPackedB packed;
  packed.pack(8, 20, b.data_ptr<float>(), 20, 1);
  const mt::SmallGemmOperands operands{a.data_ptr<float>(), 9, 1, nullptr, 0, 0, c.data_ptr<float>(), 21};
  CHECK_THROWS_AS(mt::small_gemm(6, 20, 9, 1.0f, operands, {mt::Triangle::none, 0, false, &packed}),
                  std::invalid_argument);  // depth 9 of 8
  CHECK_THROWS_AS(mt::small_gemm(6, 21, 8, 1.0f, operands, {mt::Triangle::none, 0, false, &packed}),
                  std::invalid_argument);  // 21 columns of 20
  CHECK_NOTHROW(mt::small_gemm(6, 20, 8, 1.0f, operands, {mt::Triangle::none, 0, false, &packed}));
  const auto runnable = mt::runnable_kernel_isas();
  if (runnable.size() > 1) {
    mt::KernelIsaOverride other(runnable.front() == packed.isa() ? runnable.back() : runnable.front());
    CHECK_THROWS_AS(mt::small_gemm(6, 20, 8, 1.0f, operands, {mt::Triangle::none, 0, false, &packed}),
                    std::invalid_argument);
  }
}

TEST_CASE("fused causal attention matches the composite formulation in value and gradient") {
  torch::manual_seed(8);
  struct Shape {
    int64_t batch, seq, d, heads;
  };
  // Head sizes 8, 12 and 64; sequence lengths that do and do not fill whole vectors; at 600 the
  // queries are taken in blocks (162 rows, the last one 114), and at 1030 the backward also
  // recomputes each block's probabilities from the saved log-sum-exp.
  for (const Shape& s :
       {Shape{2, 37, 48, 4}, Shape{3, 128, 256, 4}, Shape{1, 1, 16, 2}, Shape{1, 600, 48, 4}, Shape{1, 1030, 16, 2}}) {
    CAPTURE(s.seq);
    CAPTURE(s.d);
    auto qkv = torch::randn({s.batch, s.seq, 3 * s.d});
    auto upstream = torch::randn({s.batch, s.seq, s.d});
    auto reference_input = qkv.clone().requires_grad_(true);
    auto expected = mt::composite_causal_attention(reference_input, s.heads, 0.0, true);
    expected.backward(upstream);
    // Norm-wise: softmax turns the scores' rounding (eps·|score|) into relative error of the
    // weights, and the products over head_dim and seq terms add eps per term in the worst case.
    // Both scale the result's largest magnitude.
    const auto heads = qkv.to(torch::kDouble).view({s.batch, s.seq, 3, s.heads, s.d / s.heads});
    const auto q = heads.select(2, 0).transpose(1, 2), k = heads.select(2, 1).transpose(1, 2);
    const double max_score = max_magnitude(torch::matmul(q, k.transpose(-2, -1))) / std::sqrt(s.d / s.heads);
    const double amplification = 1 + max_score + std::sqrt(static_cast<double>(s.seq + s.d));
    const double value_tolerance = 8 * kFloatEps * amplification * max_magnitude(expected);
    const double grad_tolerance = 8 * kFloatEps * amplification * max_magnitude(reference_input.grad());
    for (auto isa : mt::runnable_kernel_isas()) {
      CAPTURE(std::string(mt::kernel_isa_name(isa)));
      mt::KernelIsaOverride pin(isa);
      auto input = qkv.clone().requires_grad_(true);
      auto y = mt::causal_attention(input, s.heads, 0.0, true);
      y.backward(upstream);
      CHECK(worst_error_ratio(y, expected, value_tolerance) <= 1.0);
      CHECK(worst_error_ratio(input.grad(), reference_input.grad(), grad_tolerance) <= 1.0);
    }
  }
}

TEST_CASE("the causal softmax kernels take nothing from the entries above the diagonal") {
  // The products leave them unset (Triangle::unused_c_upper), and the kernels read a row's last
  // vector whole where it fits: NaN there must change no visible value, and each kernel writes 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t seq : {1, 5, 16, 37, 64}) {
    CAPTURE(seq);
    const auto n = static_cast<std::size_t>(seq * seq);
    auto hidden = [seq](std::size_t i) { return static_cast<int64_t>(i) % seq > static_cast<int64_t>(i) / seq; };
    auto scores = torch::randn({seq, seq}) * 3, upstream = torch::randn({seq, seq});
    std::vector<float> clean(scores.data_ptr<float>(), scores.data_ptr<float>() + n),
        dirty = clean, grad(upstream.data_ptr<float>(), upstream.data_ptr<float>() + n), dirty_grad = grad;
    for (std::size_t i = 0; i < n; ++i)
      if (hidden(i)) clean[i] = grad[i] = 0.0f, dirty[i] = dirty_grad[i] = nan;
    for (auto isa : mt::runnable_kernel_isas()) {
      CAPTURE(std::string(mt::kernel_isa_name(isa)));
      mt::KernelIsaOverride pin(isa);
      auto probs = clean, dirty_probs = dirty, again = dirty;
      std::vector<float> lse(seq), dirty_lse(seq);
      mt::causal_softmax_rows(probs.data(), seq, 0, seq, lse.data());
      mt::causal_softmax_rows(dirty_probs.data(), seq, 0, seq, dirty_lse.data());
      CHECK(dirty_probs == probs);  // NaN would compare unequal
      CHECK(dirty_lse == lse);
      mt::causal_softmax_recompute_rows(again.data(), lse.data(), seq, 0, seq);
      auto dirty_ds = dirty_grad, ds = grad;
      mt::causal_softmax_backward_rows(probs.data(), ds.data(), seq, 0, seq);
      mt::causal_softmax_backward_rows(probs.data(), dirty_ds.data(), seq, 0, seq);
      CHECK(dirty_ds == ds);
      int unset = 0, far = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (hidden(i)) unset += probs[i] != 0.0f || again[i] != 0.0f || ds[i] != 0.0f;
        // exp(x - lse) against exp(x - max) / total: the argument's rounding, eps·(|x| + 2|lse|)
        // in absolute terms, becomes relative error of the result; exp and the division add ulps.
        else
          far += std::abs(again[i] - probs[i]) >
                 kFloatEps * (4 + std::abs(clean[i]) + 2 * std::abs(lse[i / seq])) * probs[i] + 1e-37f;
      }
      CHECK(unset == 0);
      CHECK(far == 0);  // the recomputed probabilities are the forward's, to rounding
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
  CHECK(torch::equal(eval, mt::causal_attention(qkv, 4, 0.0, true)));  // same path, same kernel
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
