// Shape of the GPT model. Plain data, no torch, so configuration code can use it cheaply.
#pragma once

#include <cstdint>

namespace mt {

struct ModelConfig {
  int64_t vocab_size = 16384;
  int64_t d_model = 512;
  int64_t n_heads = 8;
  int64_t n_layers = 8;
  int64_t seq_length = 256;
  double dropout = 0.0;
};

// V·d + S·d + L(12d² + 13d) + 2d: embeddings, blocks, final LayerNorm; the LM head is tied. In
// double for a configuration that may be too large to build (its count can overflow int64_t).
template <typename Count = int64_t>
Count expected_parameter_count(const ModelConfig& c) {
  const auto d = static_cast<Count>(c.d_model);
  return static_cast<Count>(c.vocab_size) * d + static_cast<Count>(c.seq_length) * d +
         static_cast<Count>(c.n_layers) * (12 * d * d + 13 * d) + 2 * d;
}

}  // namespace mt
