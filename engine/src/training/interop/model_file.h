// Model-shaped tensors (one per parameter, the engine's names, model order) written as a
// safetensors file under nanoGPT's names, with the model's configuration in its metadata: the
// weights `export` writes, and the gradients `train --gradients-out` writes.
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "training/model/model_config.h"

namespace mt {

void write_model_file(const std::filesystem::path& path, const ModelConfig& config,
                      const std::vector<std::string>& engine_names, const std::vector<torch::Tensor>& tensors,
                      std::map<std::string, std::string> extra_metadata = {});

}  // namespace mt
