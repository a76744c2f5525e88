#include "report/compare/change_point.h"

#include <cmath>

#include "report/model/contrast.h"

namespace mt {

std::vector<Boundary> find_change_points(const std::vector<std::vector<double>>& series, double min_change) {
  std::vector<Boundary> out;
  std::vector<double> p;
  std::vector<std::size_t> tested;
  std::optional<std::size_t> previous;
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (series[k].empty()) continue;
    if (!previous) {
      previous = k;
      continue;
    }
    Boundary b;
    b.before = *previous;
    b.after = k;
    previous = k;
    const auto &before = series[b.before], &after = series[k];
    if (mean(before) != 0) b.change = mean(after) / mean(before) - 1;
    if (auto test = welch_t_test(before, after)) {
      b.p = test->p;
      tested.push_back(out.size());
      p.push_back(test->p);
    }
    out.push_back(b);
  }
  const std::vector<double> adjusted = holm_adjust(p);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    Boundary& b = out[tested[i]];
    b.adjusted_p = adjusted[i];
    b.change_point = adjusted[i] < kNoiseThreshold && b.change && std::fabs(*b.change) >= min_change;
  }
  return out;
}

}  // namespace mt
