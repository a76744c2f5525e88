// Callbacks around the accumulation of a parameter's gradient into .grad during backward.
// `after` runs once the gradient is in .grad (a post hook on the parameter's AccumulateGrad
// node, as PyTorch's DDP reducer does); `before` runs just before (a tensor hook), in time to
// point .grad at a freshly allocated buffer. Both fire once per backward per parameter, also
// for a parameter used twice (the tied embedding): the engine sums its inputs first.
#pragma once

#include <torch/torch.h>

#include <c10/util/intrusive_ptr.h>

#include <functional>
#include <vector>

namespace torch::autograd {
struct Node;
}

namespace mt {

class GradHooks {
 public:
  GradHooks();
  ~GradHooks();  // out of line: Node is incomplete here
  void after_accumulate(const torch::Tensor& parameter, std::function<void()> callback);
  void before_accumulate(torch::Tensor& parameter, std::function<void()> callback);

 private:
  // The variable holds its accumulator weakly; keeping it here keeps the hooks registered.
  std::vector<c10::intrusive_ptr<torch::autograd::Node>> accumulators_;
};

}  // namespace mt
