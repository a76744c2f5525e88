#include "training/data/synthetic.h"

#include <ATen/CPUGeneratorImpl.h>

namespace mt {

uint64_t synthetic_batch_seed(uint64_t seed, int64_t micro_batch, int rank) {
  return seed + static_cast<uint64_t>(micro_batch) * 1000003ULL + static_cast<uint64_t>(rank) * 97003ULL;
}

TokenBatch synthetic_batch(uint64_t seed, int64_t micro_batch, int rank, int64_t batch_size, int64_t seq_length,
                           int64_t vocab_size) {
  auto generator = at::detail::createCPUGenerator(synthetic_batch_seed(seed, micro_batch, rank));
  // One extra token per row so targets are the inputs shifted by one.
  auto tokens = torch::randint(0, vocab_size, {batch_size, seq_length + 1}, generator,
                               torch::TensorOptions().dtype(torch::kLong));
  using torch::indexing::Slice;
  return TokenBatch{tokens.index({Slice(), Slice(0, seq_length)}).contiguous(),
                    tokens.index({Slice(), Slice(1, seq_length + 1)}).contiguous()};
}

}  // namespace mt
