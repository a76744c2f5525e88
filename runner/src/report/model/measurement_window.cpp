#include "report/model/measurement_window.h"

#include <algorithm>
#include <cmath>

#include "report/model/per_step.h"
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

}  // namespace

std::optional<double> MeasurementWindow::mean_relative_error() const {
  if (!step_cv || !measured_steps || *measured_steps < 1) return std::nullopt;
  return *step_cv / std::sqrt(double(*measured_steps));
}

MeasurementWindow measurement_window(const Group& g) {
  MeasurementWindow w;
  std::vector<double> cvs;
  for (const ReportTrial* t : g.succeeded) {
    auto steps = t->metric("steps");
    if (!steps) continue;
    int measured = int(*steps);
    w.measured_steps = w.measured_steps ? std::min(*w.measured_steps, measured) : measured;
    if (auto cv = coefficient_of_variation(measured_step_times(*t, measured))) cvs.push_back(*cv);
  }
  if (!cvs.empty()) w.step_cv = mean(cvs);
  return w;
}

}  // namespace mt
