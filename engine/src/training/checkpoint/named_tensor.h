// A tensor with the name it is checkpointed under: "<component>/<name>", the component being
// model, optimizer, scheduler, train_state, data or rng.
#pragma once

#include <torch/torch.h>

#include <string>

namespace mt {

struct NamedTensor {
  std::string name;
  torch::Tensor tensor;
};

}  // namespace mt
