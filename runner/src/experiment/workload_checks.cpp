#include "experiment/workload_checks.h"

#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace mt {
namespace {

// mtengine train's defaults for the parameters the checks read (`mtengine train --help`).
const std::map<std::string, std::string> kTrainDefaults = {
    {"d_model", "512"},      {"n_heads", "8"},           {"learning_rate", "3e-4"}, {"bucket_cap_mb", "25"},
    {"dropout", "0"},        {"min_learning_rate", "0"}, {"first_bucket_cap_mb", "1"}};

double number(const ParamLookup& param, const std::string& name) {
  auto v = param(name);
  return std::strtod(v ? v->c_str() : kTrainDefaults.at(name).c_str(), nullptr);
}

std::optional<TrialProblem> check_train(const ParamLookup& param) {
  const long d_model = long(number(param, "d_model"));
  const long n_heads = long(number(param, "n_heads"));
  if (n_heads > 0 && d_model % n_heads != 0) {
    return TrialProblem{param("n_heads") ? "n_heads" : "d_model",
                        fmt::format("n_heads {} does not divide d_model {}", n_heads, d_model)};
  }
  if (number(param, "learning_rate") <= 0) return TrialProblem{"learning_rate", "learning_rate must be positive"};
  if (number(param, "bucket_cap_mb") <= 0) return TrialProblem{"bucket_cap_mb", "bucket_cap_mb must be positive"};
  if (number(param, "first_bucket_cap_mb") <= 0) {
    return TrialProblem{"first_bucket_cap_mb", "first_bucket_cap_mb must be positive"};
  }
  if (number(param, "min_learning_rate") > number(param, "learning_rate")) {
    return TrialProblem{param("min_learning_rate") ? "min_learning_rate" : "learning_rate",
                        fmt::format("min_learning_rate {} exceeds learning_rate {}", number(param, "min_learning_rate"),
                                    number(param, "learning_rate"))};
  }
  if (number(param, "dropout") >= 1) {
    return TrialProblem{"dropout", fmt::format("dropout {} must be below 1", number(param, "dropout"))};
  }
  return std::nullopt;
}

}  // namespace

std::optional<TrialProblem> check_trial_params(const std::string& workload, const ParamLookup& param) {
  if (workload == "train") return check_train(param);
  return std::nullopt;
}

}  // namespace mt
