// Gradients accumulated in place (grad_in_place.h): a registered parameter's gradient lands in
// its .grad buffer, summed with what that held, and its accumulator still runs (with nothing to
// add), so a strategy's readiness hook fires; unregistered parameters, and products oneDNN runs
// where it cannot add into a result, return their gradient to autograd as before. Values within
// float32 summation bounds of float64.
#include "torch_doctest.h"

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "float_bounds.h"
#include "pinned_gemm_backend.h"
#include "training/model/embedding.h"
#include "training/model/gemm_backend.h"
#include "training/model/grad_in_place.h"
#include "training/strategy/grad_hooks.h"

namespace {

using mt::GemmBackend;
using mt::testing::kFloatEps;
using mt::testing::PinnedGemmBackend;
using mt::testing::worst_error_ratio;

// Counts the runs of a parameter's gradient accumulator, those that had a gradient to add, and a
// hook after it, as a strategy registers one.
struct AccumulatorWatch {
  explicit AccumulatorWatch(const torch::Tensor& parameter)
      : accumulator(torch::autograd::impl::grad_accumulator(parameter)) {
    // The variable holds its accumulator weakly: kept here, it is the one backward runs.
    accumulator->add_pre_hook(std::make_unique<Counter>(*this));
    hooks.after_accumulate(parameter, [this] { ++hooks_fired; });
  }
  struct Counter final : torch::autograd::FunctionPreHook {
    explicit Counter(AccumulatorWatch& w) : watch(w) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& inputs) override {
      ++watch.runs;
      if (inputs.at(0).defined()) ++watch.with_gradient;
      return inputs;
    }
    AccumulatorWatch& watch;
  };
  c10::intrusive_ptr<torch::autograd::Node> accumulator;
  mt::GradHooks hooks;
  int runs = 0, with_gradient = 0, hooks_fired = 0;
};

// What a backward sees: grad mode off.
template <class F>
torch::Tensor in_backward(F f, const torch::Tensor& parameter) {
  torch::NoGradGuard no_grad;
  return f(parameter, torch::kFloat);
}

}  // namespace

TEST_CASE("in place: a registered weight's gradient is added by its GEMM into .grad") {
  torch::manual_seed(7);
  const auto x0 = torch::randn({2, 24, 32}), w0 = torch::randn({40, 32}) * 0.1, grad_out = torch::randn({2, 24, 40});
  const auto earlier = torch::randn({40, 32});  // what .grad holds already: an earlier micro-batch's sum
  const auto g = grad_out.reshape({-1, 40}).to(torch::kDouble), x64 = x0.reshape({-1, 32}).to(torch::kDouble);
  const auto expected = earlier.to(torch::kDouble) + g.t().mm(x64);
  // 48 products and the earlier value summed in float32.
  const auto bound = 49 * kFloatEps * (g.abs().t().mm(x64.abs()) + earlier.to(torch::kDouble).abs()) + 1e-30;
  struct Case {
    bool registered;
    GemmBackend backend;
    bool added_by_gemm;  // else returned to autograd, which adds it
  };
  // oneDNN adds into .grad where its direct entry runs (AVX-512 CPUs), else returns the product.
  for (const Case c : {Case{true, GemmBackend::mkl, true}, Case{true, GemmBackend::onednn, mt::onednn_accumulates()},
                       Case{false, GemmBackend::mkl, false}, Case{false, GemmBackend::onednn, false}}) {
    const std::string name = mt::gemm_backend_name(c.backend);
    CAPTURE(name);
    CAPTURE(c.registered);
    PinnedGemmBackend pinned(c.backend);
    auto x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    auto buffer = earlier.clone();
    w.mutable_grad() = buffer;  // as a strategy's bucket view
    AccumulatorWatch watch(w);
    std::optional<mt::GradsAccumulatedInPlace> registration;
    if (c.registered) registration.emplace(std::vector<torch::Tensor>{w});
    CHECK(in_backward(mt::grad_to_accumulate_into, w).defined() == c.registered);
    const mt::GemmTally before = mt::gemm_tally();
    mt::dispatched_linear(x, w, torch::Tensor()).backward(grad_out);
    // Either way the three products are tallied, the gradient lands in the same buffer, summed
    // with what it held, and the accumulator runs once: a hook after it (a bucket's readiness) fires.
    CHECK(mt::gemm_tally().flops - before.flops == 3 * 2.0 * 48 * 40 * 32);
    CHECK(w.grad().data_ptr() == buffer.data_ptr());
    CHECK(worst_error_ratio(w.grad(), expected, bound) <= 1.0);
    CHECK(watch.runs == 1);
    CHECK(watch.hooks_fired == 1);
    // Only the GEMM's own addition leaves the accumulator nothing to add.
    CHECK(watch.with_gradient == (c.added_by_gemm ? 0 : 1));
  }
}

TEST_CASE("in place: a registered embedding's rows are scattered into .grad, repeated ids summed") {
  torch::manual_seed(11);
  const int64_t vocab = 50, d = 24;
  const auto w0 = torch::randn({vocab, d});
  const auto ids = torch::randint(0, 10, {3, 40}, torch::TensorOptions().dtype(torch::kLong));  // many repeats
  const auto grad_out = torch::randn({3, 40, d});
  const auto earlier = torch::randn({vocab, d});
  // float64 reference: the rows' gradients summed per id, added to what .grad held.
  auto expected = earlier.to(torch::kDouble).clone();
  expected.index_add_(0, ids.reshape({-1}), grad_out.reshape({-1, d}).to(torch::kDouble));
  auto magnitude = earlier.to(torch::kDouble).abs();
  magnitude.index_add_(0, ids.reshape({-1}), grad_out.reshape({-1, d}).to(torch::kDouble).abs());
  const auto bound = 121 * kFloatEps * magnitude + 1e-30;  // at most 120 rows and the earlier value
  for (bool registered : {true, false}) {
    CAPTURE(registered);
    auto w = w0.clone().requires_grad_(true);
    auto buffer = earlier.clone();
    w.mutable_grad() = buffer;
    AccumulatorWatch watch(w);
    std::optional<mt::GradsAccumulatedInPlace> registration;
    if (registered) registration.emplace(std::vector<torch::Tensor>{w});
    auto y = mt::embedding_lookup(w, ids);
    CHECK(torch::equal(y, torch::embedding(w0, ids)));  // a lookup: exact
    y.backward(grad_out);
    CHECK(w.grad().data_ptr() == buffer.data_ptr());
    CHECK(worst_error_ratio(w.grad(), expected, bound) <= 1.0);
    CHECK(watch.runs == 1);
    CHECK(watch.hooks_fired == 1);
    CHECK(watch.with_gradient == (registered ? 0 : 1));
  }
  // Registration ends with its object.
  auto w = w0.clone().requires_grad_(true);
  w.mutable_grad() = torch::zeros_like(w0);
  {
    mt::GradsAccumulatedInPlace registration({w});
    CHECK(in_backward(mt::grad_to_accumulate_into, w).defined());
  }
  CHECK_FALSE(in_backward(mt::grad_to_accumulate_into, w).defined());
  // Not in a backward that builds a graph (grad mode on), nor into a buffer of another type.
  mt::GradsAccumulatedInPlace registration({w});
  CHECK_FALSE(mt::grad_to_accumulate_into(w, torch::kFloat).defined());
  torch::NoGradGuard no_grad;
  CHECK_FALSE(mt::grad_to_accumulate_into(w, torch::kDouble).defined());
}
