#include "torch_doctest.h"

#include "training/model/gpt.h"

TEST_CASE("parameter count follows V*d + S*d + L(12d^2 + 13d) + 2d") {
  mt::ModelConfig upstream{8192, 512, 8, 6, 256, 0.0};
  CHECK(mt::expected_parameter_count(upstream) == 23240704);

  for (const mt::ModelConfig& shape :
       {mt::ModelConfig{97, 16, 2, 1, 8, 0.0}, mt::ModelConfig{2048, 128, 4, 2, 128, 0.1},
        mt::ModelConfig{512, 48, 6, 3, 33, 0.0}}) {
    auto model = mt::make_gpt(shape, 1);
    CHECK(mt::parameter_count(*model) == mt::expected_parameter_count(shape));
  }
}

TEST_CASE("parameters are registered embeddings first, blocks in order, final norm last") {
  auto model = mt::make_gpt(mt::ModelConfig{64, 16, 2, 2, 8, 0.0}, 1);
  const auto names = model->named_parameters().keys();
  REQUIRE(names.size() == 2 + 2 * 12 + 2);
  CHECK(names.front() == "token_embedding.weight");
  CHECK(names[1] == "position_embedding.weight");
  CHECK(names[2].rfind("blocks.0.", 0) == 0);
  CHECK(names[2 + 12].rfind("blocks.1.", 0) == 0);
  CHECK(names.back() == "final_norm.bias");
}

TEST_CASE("model is causal and its loss starts near ln(vocab)") {
  mt::ModelConfig shape{128, 32, 4, 2, 16, 0.0};
  auto model = mt::make_gpt(shape, 3);
  model->eval();
  auto tokens = torch::randint(0, shape.vocab_size, {2, shape.seq_length}, torch::kLong);
  auto changed = tokens.clone();
  changed.index_put_({torch::indexing::Slice(), shape.seq_length - 1}, (tokens.select(1, -1) + 1) % shape.vocab_size);
  torch::NoGradGuard no_grad;
  auto a = model->forward(tokens), b = model->forward(changed);
  using torch::indexing::Slice;
  // Changing the last token must not change any earlier position's logits.
  CHECK(torch::equal(a.index({Slice(), Slice(0, -1)}), b.index({Slice(), Slice(0, -1)})));
  auto targets = torch::randint(0, shape.vocab_size, {2, shape.seq_length}, torch::kLong);
  const double loss = model->loss(tokens, targets).item<double>();
  CHECK(loss == doctest::Approx(std::log(128.0)).epsilon(0.05));
}

TEST_CASE("same seed builds the same weights") {
  mt::ModelConfig shape{64, 16, 2, 1, 8, 0.0};
  auto a = mt::make_gpt(shape, 11), b = mt::make_gpt(shape, 11), c = mt::make_gpt(shape, 12);
  auto pa = a->parameters(), pb = b->parameters(), pc = c->parameters();
  CHECK(torch::equal(pa[0], pb[0]));
  CHECK_FALSE(torch::equal(pa[0], pc[0]));
}
