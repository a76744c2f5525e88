#include "experiment/workload_checks.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "experiment/workload_params.h"

namespace mt {
namespace {

// A parameter's value in this trial, else the engine's default.
std::optional<double> value_of(const WorkloadSpec& spec, const ParamLookup& param, const std::string& name) {
  if (auto v = param(name)) return std::strtod(v->c_str(), nullptr);
  const ParamSpec* p = spec.find(name);
  if (!p || p->default_value.empty()) return std::nullopt;
  return std::strtod(p->default_value.c_str(), nullptr);
}

std::string shown(double v) { return fmt::format("{}", v); }

}  // namespace

std::optional<TrialProblem> check_trial_params(const std::string& workload, const ParamLookup& param) {
  const WorkloadSpec* spec = find_workload(workload);
  if (!spec) return std::nullopt;
  for (const auto& r : spec->relations) {
    const auto a = value_of(*spec, param, r.a), b = value_of(*spec, param, r.b);
    if (!a || !b) continue;
    // Point at the value the experiment set; when both or neither are set, at the first.
    const std::string blamed = param(r.a) || !param(r.b) ? r.a : r.b;
    if (r.relation == "divides" && (*a == 0 || std::fmod(*b, *a) != 0))
      return TrialProblem{blamed, fmt::format("{} {} does not divide {} {}", r.a, shown(*a), r.b, shown(*b))};
    if (r.relation == "at_most" && *a > *b)
      return TrialProblem{blamed, fmt::format("{} {} exceeds {} {}", r.a, shown(*a), r.b, shown(*b))};
  }
  return std::nullopt;
}

}  // namespace mt
