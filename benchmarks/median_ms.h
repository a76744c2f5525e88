// The benchmarks' timing: the median wall time of 15 runs of `work`, after 3 warm ones, in ms.
// `prepare`, where given, runs untimed before each run (to restore an input `work` overwrites).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

inline double median_ms(const std::function<void()>& work, const std::function<void()>& prepare = {}) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) {
    if (prepare) prepare();
    work();
  }
  std::vector<double> ms;
  for (int i = 0; i < 15; ++i) {
    if (prepare) prepare();
    const auto start = Clock::now();
    work();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + 7, ms.end());
  return ms[7];
}
