#include "training/profile/intervals.h"

#include <algorithm>

namespace mt {

std::vector<Interval> merged(std::vector<Interval> intervals) {
  intervals.erase(
      std::remove_if(intervals.begin(), intervals.end(), [](const Interval& i) { return i.end <= i.start; }),
      intervals.end());
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const auto& i : intervals) {
    if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

double union_length(const std::vector<Interval>& intervals) {
  double total = 0;
  for (const auto& i : merged(intervals)) total += i.end - i.start;
  return total;
}

double intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  const auto x = merged(a), y = merged(b);
  double total = 0;
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const double start = std::max(x[i].start, y[j].start), end = std::min(x[i].end, y[j].end);
    if (end > start) total += end - start;
    (x[i].end < y[j].end) ? ++i : ++j;  // advance whichever ends first
  }
  return total;
}

Exposure exposure(const std::vector<Interval>& communication, const std::vector<Interval>& compute) {
  Exposure e;
  e.communication_us = union_length(communication);
  e.compute_us = union_length(compute);
  e.overlap_us = intersection_length(communication, compute);
  e.exposed_us = e.communication_us - e.overlap_us;
  e.overlap_fraction = e.communication_us > 0 ? e.overlap_us / e.communication_us : 1.0;
  return e;
}

std::vector<Interval> subtracted(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  const auto cuts = merged(b);
  std::vector<Interval> out;
  for (const auto& piece : merged(a)) {
    double from = piece.start;
    for (const auto& cut : cuts) {
      if (cut.end <= from || cut.start >= piece.end) continue;
      if (cut.start > from) out.push_back({from, cut.start});
      from = std::max(from, cut.end);
    }
    if (from < piece.end) out.push_back({from, piece.end});
  }
  return out;
}

std::vector<Interval> clipped(const std::vector<Interval>& intervals, const Interval& window) {
  std::vector<Interval> out;
  for (const auto& i : intervals) {
    const double start = std::max(i.start, window.start), end = std::min(i.end, window.end);
    if (end > start) out.push_back({start, end});
  }
  return out;
}

}  // namespace mt
