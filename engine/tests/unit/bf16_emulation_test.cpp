#include "torch_doctest.h"

#include <ATen/autocast_mode.h>

#include "training/model/bf16_emulation.h"
#include "training/model/gpt.h"

namespace {

struct LossAndGradients {
  double loss;
  std::vector<torch::Tensor> grads;
};

enum class Mode { fp32, autocast_bf16, emulated_bf16 };

LossAndGradients run(Mode mode) {
  mt::ModelConfig shape{96, 32, 4, 2, 16, 0.0};
  auto model = mt::make_gpt(shape, 11);
  auto tokens =
      torch::randint(0, shape.vocab_size, {2, shape.seq_length + 1}, torch::TensorOptions().dtype(torch::kLong));
  using torch::indexing::Slice;
  auto inputs = tokens.index({Slice(), Slice(0, shape.seq_length)}).contiguous();
  auto targets = tokens.index({Slice(), Slice(1, shape.seq_length + 1)}).contiguous();
  mt::set_bf16_emulation(mode == Mode::emulated_bf16);
  at::autocast::set_autocast_enabled(at::kCPU, mode == Mode::autocast_bf16);
  at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
  auto loss = model->loss(inputs, targets).to(torch::kFloat);
  at::autocast::set_autocast_enabled(at::kCPU, false);
  at::autocast::clear_cache();
  loss.backward();
  mt::set_bf16_emulation(false);
  LossAndGradients out{loss.item<double>(), {}};
  for (const auto& p : model->parameters()) out.grads.push_back(p.grad().clone());
  return out;
}

double max_relative_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, ((a[i] - b[i]).norm() / (b[i].norm() + 1e-12)).item<double>());
  return worst;
}

}  // namespace

TEST_CASE("bf16 emulation computes what autocast's bf16 GEMMs compute, not fp32") {
  torch::manual_seed(5);
  const auto fp32 = run(Mode::fp32);
  torch::manual_seed(5);
  const auto native = run(Mode::autocast_bf16);
  torch::manual_seed(5);
  const auto emulated = run(Mode::emulated_bf16);

  // Both bf16 forms sit within bf16's precision of each other...
  CHECK(std::abs(emulated.loss - native.loss) / native.loss < 2e-3);
  const double to_native = max_relative_difference(emulated.grads, native.grads);
  CHECK(to_native < 5e-2);
  // ...and the emulation really rounds: it is not the fp32 computation.
  const double to_fp32 = max_relative_difference(emulated.grads, fp32.grads);
  MESSAGE("bf16 emulated vs native: loss ", emulated.loss, " vs ", native.loss, " (fp32 ", fp32.loss, "), gradients ",
          to_native, " relative; vs fp32 ", to_fp32);
  CHECK(to_fp32 > 1e-4);
  CHECK(emulated.loss != fp32.loss);
}

TEST_CASE("bf16_round rounds only while emulation is on") {
  auto x = torch::tensor({1.0f + 1.0f / 512.0f});  // not representable in bf16's 8 mantissa bits
  CHECK(mt::bf16_round(x).item<float>() == 1.0f + 1.0f / 512.0f);
  mt::set_bf16_emulation(true);
  CHECK(mt::bf16_round(x).item<float>() == 1.0f);
  mt::set_bf16_emulation(false);
}
