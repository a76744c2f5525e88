#include "training/model/model_config_json.h"

namespace mt {

nlohmann::json model_config_json(const ModelConfig& c) {
  return {{"vocab_size", c.vocab_size}, {"d_model", c.d_model},       {"n_heads", c.n_heads},
          {"n_layers", c.n_layers},     {"seq_length", c.seq_length}, {"dropout", c.dropout}};
}

}  // namespace mt
