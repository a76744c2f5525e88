// `train --init-from FILE.safetensors`: a model's starting weights from a file under nanoGPT's
// names (as `mtengine export` writes them, or as PyTorch code saves a nanoGPT-style model),
// checked against the configuration before anything is copied: every parameter present, no
// tensor the model lacks, shapes and dtypes equal, every value finite. The first problem is named.
#pragma once

#include <filesystem>
#include <string>

#include "training/model/gpt.h"

namespace mt {

struct InitialWeights {
  std::string path;
  std::string sha256;  // of the file: part of the run's configuration fingerprint
};

// Throws InputError naming the file and the first mismatch.
InitialWeights load_initial_weights(GptImpl& model, const std::filesystem::path& path);

}  // namespace mt
