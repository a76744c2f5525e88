#include "training/trainer/model_flops.h"

namespace mt {

double training_flops_per_token(const ModelShape& s) {
  const double position_table = static_cast<double>(s.seq_length) * static_cast<double>(s.d_model);
  const double weights = static_cast<double>(s.parameters) - position_table;
  const double attention =
      12.0 * static_cast<double>(s.n_layers) * static_cast<double>(s.d_model) * static_cast<double>(s.seq_length);
  return 6.0 * weights + attention;
}

double utilisation(double flops_per_token, double tokens_per_sec, double peak_flops) {
  if (peak_flops <= 0) return 0;
  return flops_per_token * tokens_per_sec / peak_flops;
}

}  // namespace mt
