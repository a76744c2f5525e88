// Mean softmax cross-entropy with its own autograd function. The forward keeps only one
// log-sum-exp per row; backward writes softmax minus one-hot in a single pass. The composite
// log_softmax + nll_loss materialises a log-probability tensor, a zero-filled gradient and a
// second full pass, which for a 4096-word vocabulary costs more than the blocks' elementwise ops.
#pragma once

#include <torch/torch.h>

namespace mt {

// What becomes of the logits once backward has run: kept as they were, or overwritten by their
// gradient (the same shape), which spares a buffer as large as the logits (16 MiB for the 23.2M
// model, whose cross-entropy backward went from 5.8 ms to under 1.4 ms a step in the profiler's
// operator table). Only for a caller that reads neither the logits nor a view of them after
// backward.
enum class LogitsAfterBackward { kept, overwritten };

// logits [N, V] (fp32 on CPU takes the fused path; anything else the composite), targets [N]
// class indices -> 0-dim mean loss. Same value and gradient as
// torch::nn::functional::cross_entropy up to float rounding.
torch::Tensor softmax_cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets,
                                    LogitsAfterBackward after = LogitsAfterBackward::kept);

}  // namespace mt
