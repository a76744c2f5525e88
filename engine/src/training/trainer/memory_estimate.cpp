#include "training/trainer/memory_estimate.h"

#include <algorithm>

namespace mt {

TrainingMemory training_memory_lower_bound(const TrainConfig& c, int world_size) {
  constexpr double kFloat = 4.0;
  const double d = static_cast<double>(c.model.d_model);
  const double parameters = expected_parameter_count<double>(c.model);
  const double shards = std::max(1, world_size);
  TrainingMemory m;
  m.parameter_bytes = kFloat * parameters;
  m.model_state_bytes = m.parameter_bytes + 3.0 * m.parameter_bytes / shards;
  const double tokens = static_cast<double>(c.batch_size) * static_cast<double>(c.model.seq_length);
  m.activation_bytes =
      kFloat * tokens * (2.0 * static_cast<double>(c.model.vocab_size) + d * static_cast<double>(c.model.n_layers));
  return m;
}

}  // namespace mt
