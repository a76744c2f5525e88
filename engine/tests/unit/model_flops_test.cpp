#include <doctest/doctest.h>

#include "training/trainer/model_flops.h"

TEST_CASE("training FLOPs per token count 6 per multiplying weight and 12 L d T for attention") {
  // The upstream model: vocab 8192, d 512, 6 layers, seq 256; 23,240,704 parameters, of which the
  // position table holds 256 x 512.
  const mt::ModelShape upstream{23240704, 6, 512, 256};
  const double weights = 23240704.0 - 256.0 * 512.0;
  CHECK(mt::training_flops_per_token(upstream) == doctest::Approx(6 * weights + 12.0 * 6 * 512 * 256));
  CHECK(mt::training_flops_per_token(upstream) == doctest::Approx(148094976.0));

  // By hand for a tiny GPT (vocab 64, d 32, 2 layers, seq 16): token table (also the LM head),
  // and per layer two LayerNorms, the qkv and output projections and the MLP, each with biases.
  const double d = 32,
               per_layer = 2 * (2 * d) + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d);
  const double multiplying = 64 * d + 2 * per_layer + 2 * d;  // + the final LayerNorm
  const double all = multiplying + 16 * d;                    // + the position table
  CHECK(mt::training_flops_per_token({static_cast<int64_t>(all), 2, 32, 16}) ==
        doctest::Approx(6 * multiplying + 12.0 * 2 * 32 * 16));
}

TEST_CASE("utilisation is achieved FLOP/s over the peak, and 0 when the peak is unknown") {
  CHECK(mt::utilisation(1e6, 1000, 2e9) == doctest::Approx(0.5));
  CHECK(mt::utilisation(1e6, 1000, 0) == 0);
}
