#include "report/model/measurement_window.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "checked_int.h"
#include "report/model/contrast.h"
#include "report/model/per_step.h"
#include "report/render/cells.h"
#include "stats.h"

namespace mt {
namespace {

// The measured steps' times of one trial: per step the slowest rank (a step lasts as long as its
// slowest rank), warmup dropped. Empty when the result has no per-step times.
std::vector<double> measured_step_times(const ReportTrial& t, int measured) {
  std::vector<std::vector<double>> ranks = per_rank_series(t, "step_time_ms");
  std::vector<double> slowest;
  for (const auto& r : ranks) {
    if (int(r.size()) < measured) return {};
    // The series include the warmup steps first; the measured ones are the last `measured`.
    for (int i = 0; i < measured; ++i) {
      double v = r[r.size() - size_t(measured) + size_t(i)];
      if (size_t(i) >= slowest.size()) slowest.push_back(v);
      else slowest[size_t(i)] = std::max(slowest[size_t(i)], v);
    }
  }
  return slowest;
}

// The drift test over a group's repeats.
std::optional<WindowDrift> window_drift(const std::vector<double>& drifts) {
  if (drifts.size() < kMinDriftRepeats) return std::nullopt;
  WindowDrift d;
  d.repeats = drifts.size();
  d.mean = mean(drifts);
  for (double x : drifts) d.same_sign += (x < 0) == (d.mean < 0) && x != 0 ? 1 : 0;
  if (auto test = one_sample_t_test(drifts)) d.p = test->p;
  return d;
}

}  // namespace

std::optional<double> step_drift(const std::vector<double>& measured) {
  const std::size_t n = measured.size();
  if (n < std::size_t(kMinDriftSteps)) return std::nullopt;
  const std::vector<double> first_quarter(measured.begin(), measured.begin() + long(n / 4));
  const std::vector<double> last_half(measured.end() - long(n / 2), measured.end());
  const double early = mean(first_quarter), drift = mean(last_half) / early - 1;
  // Times past a double's range (a result may hold anything) say nothing of a trend.
  if (!(early > 0) || !std::isfinite(drift)) return std::nullopt;
  return drift;
}

std::optional<double> MeasurementWindow::mean_relative_error() const {
  if (!step_cv || !measured_steps || *measured_steps < 1) return std::nullopt;
  return *step_cv / std::sqrt(double(*measured_steps));
}

MeasurementWindow measurement_window(const Group& g) {
  MeasurementWindow w;
  std::vector<double> cvs, drifts;
  for (const ReportTrial* t : g.succeeded) {
    const auto steps = t->metric("steps");
    const std::optional<int> counted = steps ? checked_int(*steps) : std::nullopt;
    if (!counted) continue;
    const int measured = *counted;
    w.measured_steps = w.measured_steps ? std::min(*w.measured_steps, measured) : measured;
    const std::vector<double> times = measured_step_times(*t, measured);
    if (auto cv = coefficient_of_variation(times)) cvs.push_back(*cv);
    if (auto drift = step_drift(times)) drifts.push_back(*drift);
  }
  if (!cvs.empty()) w.step_cv = mean(cvs);
  w.drift = window_drift(drifts);
  return w;
}

std::string drift_description(const WindowDrift& d) {
  return fmt::format("the last half {} {} than the first quarter on average, {} of {} repeats that way, p {}",
                     percent(std::abs(d.mean)), d.mean < 0 ? "faster" : "slower", d.same_sign, d.repeats,
                     d.p ? p_relation(*d.p) : "unknown");
}

std::string drift_note(const Group& g) {
  const auto drift = measurement_window(g).drift;
  if (!drift || !drift->marked()) return "";
  const std::string name = g.name();
  return drift->warming()
             ? fmt::format("{}: {} still got faster over its measured steps ({}): its mean holds some warm-up",
                           kWarmingMark, name, drift_description(*drift))
             : fmt::format(
                   "{}: {} got slower over its measured steps ({}): its mean depends on how many steps were "
                   "measured",
                   kSlowingMark, name, drift_description(*drift));
}

}  // namespace mt
