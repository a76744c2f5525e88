// Learning rate per optimizer step. Torch-free arithmetic so it is cheap to test.
//   constant: linear warmup from 0 over warmup_steps, then the base rate.
//   cosine:   the same warmup, then a half cosine from the base rate down to min_learning_rate
//             over decay_steps, flat at min_learning_rate afterwards.
#pragma once

#include <cstdint>
#include <string>

namespace mt {

struct LrSchedule {
  std::string kind = "constant";  // constant | cosine
  double base = 3e-4;
  double min = 0.0;
  int64_t warmup_steps = 0;
  int64_t decay_steps = 0;  // cosine only; steps after warmup
};

double learning_rate_at(const LrSchedule& schedule, int64_t step);

}  // namespace mt
