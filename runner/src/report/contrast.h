#pragma once
// Two samples of one metric set against each other: ratio of means and a Welch t-test saying
// whether the difference stands out from run-to-run noise. Shared by `mtrun compare` (one group
// in two campaigns) and the report's study comparison (two studies in one campaign).
#include <string>
#include <vector>

#include "report/groups.h"

namespace mt {

// Differences with a two-sided Welch p-value at or above this are reported as within noise.
constexpr double kNoiseThreshold = 0.05;

struct KeyMetric {
  std::string name;
  int decimals;
};

// The metrics that answer "faster / leaner?" for groups of a's kind; for kinds without a fixed
// list, every metric both groups have.
std::vector<KeyMetric> key_metrics(const Group& a, const Group& b);

// Table cells for sample a against sample b.
struct Contrast {
  std::string a_cell, b_cell;  // "1234 ± 5 (3)", "-" when empty
  std::string ratio;           // mean a ÷ mean b, 3 decimals; "-" when undefined
  std::string p;               // "0.012", "< 0.001", or "-" with fewer than two values a side
  std::string verdict;         // "differs", "within noise" or "too few repeats"
};
Contrast contrast(const std::vector<double>& a, const std::vector<double>& b, int decimals);

}  // namespace mt
