#pragma once
// Where in a series of revisions did a metric change beyond noise? The series is one configuration's
// samples at consecutive revisions (oldest first). Every boundary between two consecutive revisions
// is tested with Welch's t-test on the two revisions' samples; the p-values of one series are
// corrected together (Holm–Bonferroni), and a boundary is a change point when its adjusted p is
// below kNoiseThreshold and the means differ by at least the minimum change (a share of the earlier
// mean). Written up in docs/measurement.md.
#include <cstddef>
#include <optional>
#include <vector>

#include "stats.h"

namespace mt {

struct Boundary {
  std::size_t before = 0;  // the revisions on either side: indices into the series
  std::size_t after = 0;
  std::optional<double> change;      // mean after ÷ mean before − 1; nullopt when a side has no values
  std::optional<double> p;           // Welch, two-sided; nullopt unless both sides have two values
  std::optional<double> adjusted_p;  // Holm over the series' tested boundaries
  bool change_point = false;
};

// One entry per boundary between consecutive revisions with values, oldest first.
std::vector<Boundary> find_change_points(const std::vector<std::vector<double>>& series, double min_change);

}  // namespace mt
