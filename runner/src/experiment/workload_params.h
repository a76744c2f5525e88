#pragma once
// What each workload accepts: parameter names, types, allowed values, bounds and defaults. The
// runner validates an experiment against this table before anything runs, so a typo fails in
// seconds, not mid-campaign. The `command` workload is the runner's own; engine workloads
// (`train`) are registered from the engine's description of itself (engine_description.h), so
// their flags, choices and bounds live in one place: the engine.
#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace mt {

enum class ParamType { Integer, Number, Choice, Boolean, Text };

struct ParamSpec {
  ParamSpec(std::string name_, ParamType type_, std::vector<std::string> choices_ = {}, double minimum_ = 0)
      : name(std::move(name_)), type(type_), choices(std::move(choices_)), minimum(minimum_) {}

  std::string name;
  ParamType type;
  std::vector<std::string> choices;  // for Choice
  double minimum = 0;                // for Integer/Number; inclusive unless exclusive_minimum
  double maximum = INT_MAX;          // for Integer/Number; inclusive unless exclusive_maximum
  bool engine_flag = true;           // false: consumed by the runner (e.g. ranks)
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::string default_value;  // the engine's default, as text ("" when it has none)
};

// A relation two parameters must satisfy, checked on each trial with defaults filled in:
// `divides` (a divides b) or `at_most` (a <= b).
struct ParamRelation {
  std::string relation, a, b;
};

struct WorkloadSpec {
  std::string name;
  std::string engine_subcommand;
  std::vector<ParamSpec> params;
  // Any parameter name is accepted (as a template variable), e.g. for the `command` workload.
  bool free_form_params = false;
  std::vector<ParamRelation> relations;

  const ParamSpec* find(const std::string& param) const;
  std::vector<std::string> param_names() const;
};

// The engine parameter that names a profile directory (`mtengine train --profile DIR`). Studies do
// not set it: `profile: true` on a study makes mtrun pass a directory inside each attempt's run
// directory.
inline constexpr const char* kProfileParam = "profile";
// Whether the workload's engine subcommand takes --PARAM with a text value (a path).
bool takes_text_flag(const WorkloadSpec& workload, const char* param);
// Whether the workload's engine subcommand takes --profile DIR.
bool can_profile(const WorkloadSpec& workload);

// The runner's own workloads plus the engine workloads registered so far.
const std::vector<WorkloadSpec>& workload_table();
const WorkloadSpec* find_workload(const std::string& name);
std::vector<std::string> workload_names();  // engine workloads included even before registration

// The parameter that names a training workload's parallel strategy.
inline constexpr const char* kStrategyParam = "strategy";
// What `param` defaults to in `workload` as the engine described it; "" when the workload is not
// registered or has no such parameter (or no default).
std::string param_default(const std::string& workload, const std::string& param);
// The engine's reference strategy: the default of `train`'s strategy (the engine lists it first in
// its strategy table), the one reports compare the other strategies with; "" while `train` is not
// registered.
std::string reference_strategy();

// The engine's subcommands mtrun runs as workloads; their parameters come from the engine.
const std::vector<std::string>& engine_workload_names();

// Engine workloads: registered from the engine's description, or marked unavailable with the
// reason (no engine, or one that cannot describe itself), which a study using it reports.
void register_engine_workload(WorkloadSpec spec);
void set_engine_workload_unavailable(const std::string& name, const std::string& reason);
std::optional<std::string> engine_workload_problem(const std::string& name);

// Why `value` is not acceptable for `spec`, or nullopt when it is. Numbers must be finite
// (no nan, inf or overflow), integers within [minimum, maximum].
std::optional<std::string> check_param_value(const ParamSpec& spec, const std::string& value);

}  // namespace mt
