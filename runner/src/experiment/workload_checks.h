#pragma once
// Checks across a trial's parameters that no single value can fail alone (n_heads must divide
// d_model, …): the engine would reject such a trial, so the runner rejects it before running
// anything, naming the parameter to change.
#include <functional>
#include <optional>
#include <string>

namespace mt {

struct TrialProblem {
  std::string blamed_param;  // where to point the message
  std::string message;
};

using ParamLookup = std::function<std::optional<std::string>(const std::string&)>;

std::optional<TrialProblem> check_trial_params(const std::string& workload, const ParamLookup& param);

}  // namespace mt
