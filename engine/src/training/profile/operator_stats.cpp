#include "training/profile/operator_stats.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace mt {

std::vector<OperatorStat> operator_stats(std::vector<OperatorCall> calls) {
  // Per thread, by start; a call that starts together with another and lasts longer encloses it.
  std::sort(calls.begin(), calls.end(), [](const OperatorCall& a, const OperatorCall& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  std::map<std::string, OperatorStat> by_name;
  struct Open {
    OperatorStat* stat;
    int64_t end_ns;
  };
  std::vector<Open> open;  // the calls enclosing the current one, innermost last
  uint64_t thread = 0;
  for (const auto& call : calls) {
    if (open.empty() || call.thread != thread) open.clear(), thread = call.thread;
    while (!open.empty() && open.back().end_ns <= call.start_ns) open.pop_back();
    const int64_t duration = std::max<int64_t>(0, call.end_ns - call.start_ns);
    OperatorStat& stat = by_name[call.name];
    stat.name = call.name;
    ++stat.calls;
    stat.total_ms += duration / 1e6;
    stat.self_ms += duration / 1e6;
    if (!open.empty()) {
      const int64_t inside = std::max<int64_t>(0, std::min(call.end_ns, open.back().end_ns) - call.start_ns);
      open.back().stat->self_ms -= inside / 1e6;
    }
    open.push_back({&stat, call.end_ns});
  }
  std::vector<OperatorStat> out;
  for (auto& [name, stat] : by_name) out.push_back(stat);
  std::sort(out.begin(), out.end(), [](const OperatorStat& a, const OperatorStat& b) {
    return a.self_ms != b.self_ms ? a.self_ms > b.self_ms : a.name < b.name;
  });
  return out;
}

nlohmann::json operator_summary(const std::vector<OperatorStat>& stats, std::size_t top) {
  double recorded = 0;
  for (const auto& s : stats) recorded += s.self_ms;
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(top, stats.size()); ++i) {
    rows.push_back({{"name", stats[i].name},
                    {"calls", stats[i].calls},
                    {"self_ms", stats[i].self_ms},
                    {"total_ms", stats[i].total_ms}});
  }
  return {{"recorded_ms", recorded}, {"operators", stats.size()}, {"top", rows}};
}

}  // namespace mt
