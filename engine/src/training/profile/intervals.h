// Interval arithmetic for explaining a step's time: how long communication ran, how much of it
// ran under computation, and how much was exposed (the step waited for it). Times in microseconds.
//   overlap  = |union(comm) ∩ union(compute)|
//   exposed  = |union(comm)| − overlap
//   overlap fraction = overlap / |union(comm)| (1 when there was no communication)
#pragma once

#include <vector>

namespace mt {

struct Interval {
  double start = 0, end = 0;
};

// Sorted, disjoint intervals covering the same time.
std::vector<Interval> merged(std::vector<Interval> intervals);
double union_length(const std::vector<Interval>& intervals);
double intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

struct Exposure {
  double communication_us = 0, compute_us = 0, overlap_us = 0, exposed_us = 0;
  double overlap_fraction = 1;
};

Exposure exposure(const std::vector<Interval>& communication, const std::vector<Interval>& compute);

// The parts of `a` not covered by `b` (e.g. computation minus the time spent waiting).
std::vector<Interval> subtracted(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Only the parts of `intervals` inside [window.start, window.end).
std::vector<Interval> clipped(const std::vector<Interval>& intervals, const Interval& window);

}  // namespace mt
