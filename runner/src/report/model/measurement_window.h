#pragma once
// How long each trial measured: its measured steps (warmup excluded), how much the step time
// varied within it, and whether it still moved one way over the window. A mean over a handful of
// steps moves with every hiccup, and one over steps that were still speeding up holds warm-up; a
// report flags both as it flags small n (docs/measurement.md).
#include <optional>
#include <string>

#include "report/model/groups.h"

namespace mt {

// Fewer measured steps than this per trial is a short window.
constexpr int kMinMeasuredSteps = 20;

// A trial's drift: its last half of measured steps' mean step time ÷ its first quarter's, − 1
// (each step the slowest rank's time). Negative: the steps got faster (warm-up not over);
// positive: slower. Judged only over this many measured steps or more (a quarter of three steps).
constexpr int kMinDriftSteps = 12;
// A group's drift is tested over this many repeats or more: the repeats are independent, the steps
// within one are not, so it is the repeats that say whether the drift is the program's or chance.
constexpr std::size_t kMinDriftRepeats = 3;
// Smallest drift, mean over the repeats, worth a mark.
constexpr double kDriftThreshold = 0.03;

struct WindowDrift {
  std::size_t repeats = 0;    // judged (kMinDriftSteps or more measured steps each)
  std::size_t same_sign = 0;  // of them, how many drifted the way their mean did
  double mean = 0;            // mean drift over them
  std::optional<double> p;    // one-sample t-test of the drifts against 0 (two-sided)
  // Beyond noise (p < 0.05) and at least kDriftThreshold: still speeding up, or slowing down.
  bool marked() const { return p && *p < 0.05 && (mean <= -kDriftThreshold || mean >= kDriftThreshold); }
  bool warming() const { return marked() && mean < 0; }
  bool slowing() const { return marked() && mean > 0; }
};

struct MeasurementWindow {
  std::optional<int> measured_steps;  // fewest over the group's trials
  // Per-step coefficient of variation within a trial (the slowest rank's time at each measured
  // step), averaged over the trials that record their steps.
  std::optional<double> step_cv;
  // step_cv ÷ √steps: roughly how far a trial's mean step time can move by chance.
  std::optional<double> mean_relative_error() const;
  bool short_window() const { return measured_steps && *measured_steps < kMinMeasuredSteps; }
  // Over kMinDriftRepeats or more repeats that record kMinDriftSteps or more steps.
  std::optional<WindowDrift> drift;
};

MeasurementWindow measurement_window(const Group& group);

// "the last half 5.2 % slower than the first quarter on average, 5 of 5 repeats that way, p = 0.007"
// (a drift with a test: marked(), or repeats enough to have one).
std::string drift_description(const WindowDrift& drift);
// "⚠warming: NAME still got faster over its measured steps (…): its mean holds some warm-up" or
// "⚠slowing: NAME got slower …: its mean depends on how many steps were measured"; "" unless
// `group`'s drift is marked.
std::string drift_note(const Group& group);

// The drift of one trial's measured step times (see kMinDriftSteps); nullopt for fewer steps.
std::optional<double> step_drift(const std::vector<double>& measured);

}  // namespace mt
