#include "report/model/per_step.h"

namespace mt {

std::vector<std::vector<double>> per_rank_series(const ReportTrial& t, const std::string& name) {
  if (!t.result.is_object() || !t.result.contains("per_step")) return {};
  const auto& per_step = t.result["per_step"];
  if (!per_step.is_object() || !per_step.contains(name) || !per_step[name].is_array()) return {};
  std::vector<std::vector<double>> ranks;
  for (const auto& series : per_step[name]) {
    if (series.is_number()) {
      if (ranks.empty()) ranks.emplace_back();
      ranks[0].push_back(series.get<double>());
    } else if (series.is_array()) {
      ranks.emplace_back();
      for (const auto& v : series) {
        if (v.is_number()) ranks.back().push_back(v.get<double>());
      }
    }
  }
  return ranks;
}

long long first_step_of(const ReportTrial& t) {
  if (!t.result.is_object() || !t.result.contains("per_step")) return 0;
  const auto& per_step = t.result["per_step"];
  if (!per_step.is_object() || !per_step.contains("first_step") || !per_step["first_step"].is_number_integer())
    return 0;
  return per_step["first_step"].get<long long>();
}

}  // namespace mt
