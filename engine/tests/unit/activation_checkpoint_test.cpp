#include "torch_doctest.h"

#include "training/data/synthetic.h"
#include "training/model/activation_checkpoint.h"
#include "training/model/gpt.h"

namespace {

// Gradients of one forward + backward, dropout masks drawn from `dropout_seed`.
std::vector<torch::Tensor> gradients(bool checkpointing, double dropout) {
  mt::ModelConfig shape{64, 32, 4, 3, 16, dropout};
  auto model = mt::make_gpt(shape, 7);
  model->train();
  if (checkpointing) model->set_block_runner(mt::checkpointed_runner(model->block_runner()));
  const auto batch = mt::synthetic_batch(11, 0, 0, 2, shape.seq_length, shape.vocab_size);
  torch::manual_seed(99);
  model->loss(batch.inputs, batch.targets).backward();
  std::vector<torch::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.grad().clone());
  return out;
}

}  // namespace

TEST_CASE("activation checkpointing gives the plain run's gradients") {
  for (double dropout : {0.0, 0.1}) {
    const auto plain = gradients(false, dropout);
    const auto checkpointed = gradients(true, dropout);
    REQUIRE(plain.size() == checkpointed.size());
    double worst = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      REQUIRE(checkpointed[i].defined());
      worst = std::max(worst, (plain[i] - checkpointed[i]).abs().max().item<double>());
    }
    INFO("dropout " << dropout << ": max |plain - checkpointed| = " << worst);
    CHECK(worst <= 1e-6);
  }
}
