// LibTorch's profiler reports every operator call with its start and end on a thread; calls nest
// (aten::linear calls aten::addmm). An operator's self time is its duration less that of the
// calls directly inside it, so self times add up to the time spent in operators without counting
// any twice; its total time includes them. Torch-free, so it can be checked on hand-made calls.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace mt {

struct OperatorCall {
  std::string name;
  uint64_t thread = 0;
  int64_t start_ns = 0, end_ns = 0;
};

struct OperatorStat {
  std::string name;
  int64_t calls = 0;
  double self_ms = 0, total_ms = 0;
};

// Per operator name, by self time (largest first; ties by name). A call that ends after the call
// around it (clock jitter) counts inside it only up to that call's end.
std::vector<OperatorStat> operator_stats(std::vector<OperatorCall> calls);

// {"recorded_ms": Σ self, "operators": n, "top": [{"name", "calls", "self_ms", "total_ms"}…]}: the
// first `top` of `stats`.
nlohmann::json operator_summary(const std::vector<OperatorStat>& stats, std::size_t top);

}  // namespace mt
