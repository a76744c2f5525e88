// The model's shape as results and checkpoint fingerprints record it: one object, so the two
// cannot come to describe the same model differently.
#pragma once

#include <nlohmann/json.hpp>

#include "training/model/model_config.h"

namespace mt {

// {"vocab_size", "d_model", "n_heads", "n_layers", "seq_length", "dropout"}
nlohmann::json model_config_json(const ModelConfig& c);

}  // namespace mt
