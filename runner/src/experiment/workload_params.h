#pragma once
// What each workload accepts: parameter names, types and allowed values. The runner validates an
// experiment against this table before anything runs, so a typo fails in seconds, not mid-campaign.
#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace mt {

enum class ParamType { Integer, Number, Choice, Boolean };

struct ParamSpec {
  std::string name;
  ParamType type;
  std::vector<std::string> choices;  // for Choice
  double minimum = 0;                // for Integer/Number; inclusive
  double maximum = INT_MAX;          // for Integer; inclusive (the runner and engine read ints)
  bool engine_flag = true;           // false: consumed by the runner (e.g. ranks)
};

struct WorkloadSpec {
  std::string name;
  std::string engine_subcommand;
  std::vector<ParamSpec> params;
  // Any parameter name is accepted (as a template variable), e.g. for the `command` workload.
  bool free_form_params = false;

  const ParamSpec* find(const std::string& param) const;
  std::vector<std::string> param_names() const;
};

const std::vector<WorkloadSpec>& workload_table();
const WorkloadSpec* find_workload(const std::string& name);
std::vector<std::string> workload_names();

// Why `value` is not acceptable for `spec`, or nullopt when it is. Numbers must be finite
// (no nan, inf or overflow), integers within [minimum, maximum].
std::optional<std::string> check_param_value(const ParamSpec& spec, const std::string& value);

}  // namespace mt
