#pragma once
// How long each trial measured: its measured steps (warmup excluded) and how much the step time
// varied within it. A mean over a handful of steps moves with every hiccup; a report flags such
// short windows as it flags small n (docs/measurement.md).
#include <optional>

#include "report/model/groups.h"

namespace mt {

// Fewer measured steps than this per trial is a short window.
constexpr int kMinMeasuredSteps = 20;

struct MeasurementWindow {
  std::optional<int> measured_steps;  // fewest over the group's trials
  // Per-step coefficient of variation within a trial (the slowest rank's time at each measured
  // step), averaged over the trials that record their steps.
  std::optional<double> step_cv;
  // step_cv ÷ √steps: roughly how far a trial's mean step time can move by chance.
  std::optional<double> mean_relative_error() const;
  bool short_window() const { return measured_steps && *measured_steps < kMinMeasuredSteps; }
};

MeasurementWindow measurement_window(const Group& group);

}  // namespace mt
