#include "stats.h"

#include <cmath>
#include <numeric>

namespace mt {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size());
}

double sample_std(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  double m = mean(xs);
  double sum_sq = 0;
  for (double x : xs) sum_sq += (x - m) * (x - m);
  return std::sqrt(sum_sq / double(xs.size() - 1));
}

}  // namespace mt
