#include "training/optim/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace mt {

double learning_rate_at(const LrSchedule& s, int64_t step) {
  if (step < s.warmup_steps)  // step 0 already learns a little: (step + 1) / warmup
    return s.base * static_cast<double>(step + 1) / static_cast<double>(s.warmup_steps);
  if (s.kind != "cosine" || s.decay_steps <= 0) return s.base;
  const double progress =
      std::min(1.0, static_cast<double>(step - s.warmup_steps) / static_cast<double>(s.decay_steps));
  return s.min + 0.5 * (s.base - s.min) * (1.0 + std::cos(M_PI * progress));
}

}  // namespace mt
