// `mtengine tokens`: the exact synthetic batch one rank trains on at one optimizer step, written
// as safetensors (`inputs` and `targets`, int64 [A·B, T]: the step's A micro-batches of B
// sequences, stacked in order), so another implementation can compute the same loss. The step's
// loss is the mean cross-entropy over all A·B·T targets (each micro-batch's mean, averaged), and
// over ranks the mean of the ranks' losses. Defaults are `mtengine train`'s.
#pragma once

#include <cstdint>
#include <string>

namespace mt {

struct TokensConfig {
  uint64_t seed = 1337;
  int64_t step = 0;
  int rank = 0;
  int world_size = 1;
  int64_t batch_size = 2;
  int64_t seq_length = 256;
  int64_t vocab_size = 16384;
  int64_t grad_accum_steps = 1;
  std::string output;
};

int run_tokens_command(const TokensConfig& config);

}  // namespace mt
