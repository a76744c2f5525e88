#include "torch_doctest.h"

#include "training/data/synthetic.h"

TEST_CASE("synthetic batch seed follows seed + m*1000003 + r*97003") {
  CHECK(mt::synthetic_batch_seed(1337, 0, 0) == 1337);
  CHECK(mt::synthetic_batch_seed(1337, 2, 3) == 1337 + 2 * 1000003ULL + 3 * 97003ULL);
}

TEST_CASE("synthetic batches are deterministic in (seed, micro-batch, rank)") {
  auto a = mt::synthetic_batch(1337, 5, 1, 3, 16, 100);
  auto b = mt::synthetic_batch(1337, 5, 1, 3, 16, 100);
  CHECK(torch::equal(a.inputs, b.inputs));
  CHECK(torch::equal(a.targets, b.targets));

  CHECK_FALSE(torch::equal(a.inputs, mt::synthetic_batch(1337, 6, 1, 3, 16, 100).inputs));
  CHECK_FALSE(torch::equal(a.inputs, mt::synthetic_batch(1337, 5, 0, 3, 16, 100).inputs));
  CHECK_FALSE(torch::equal(a.inputs, mt::synthetic_batch(1338, 5, 1, 3, 16, 100).inputs));
}

TEST_CASE("synthetic targets are inputs shifted by one, tokens in [0, vocab)") {
  auto batch = mt::synthetic_batch(7, 0, 0, 4, 32, 50);
  CHECK(batch.inputs.sizes() == torch::IntArrayRef({4, 32}));
  CHECK(batch.targets.sizes() == torch::IntArrayRef({4, 32}));
  CHECK((batch.inputs.scalar_type() == torch::kLong));
  using torch::indexing::Slice;
  CHECK(torch::equal(batch.inputs.index({Slice(), Slice(1, 32)}), batch.targets.index({Slice(), Slice(0, 31)})));
  CHECK(batch.inputs.min().item<int64_t>() >= 0);
  CHECK(batch.targets.max().item<int64_t>() < 50);
}
