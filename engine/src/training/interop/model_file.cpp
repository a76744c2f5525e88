#include "training/interop/model_file.h"

#include <stdexcept>

#include "training/interop/nanogpt_names.h"
#include "training/interop/safetensors.h"

namespace mt {

void write_model_file(const std::filesystem::path& path, const ModelConfig& config,
                      const std::vector<std::string>& engine_names, const std::vector<torch::Tensor>& tensors,
                      std::map<std::string, std::string> extra_metadata) {
  if (engine_names.size() != tensors.size()) throw std::logic_error("write_model_file: one name per tensor");
  std::vector<NamedTensor> named;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto name = nanogpt_name(engine_names[i]);
    if (!name) throw std::logic_error("write_model_file: no nanoGPT name for " + engine_names[i]);
    named.push_back({*name, tensors[i]});
  }
  auto metadata = nanogpt_config_metadata(config);
  metadata.merge(extra_metadata);
  write_safetensors(path, named, metadata);
}

}  // namespace mt
