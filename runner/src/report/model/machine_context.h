#pragma once
// What decides CPU numbers besides the code (docs/measurement.md): the machine's cores and how a
// job used them, the BLAS, the floating-point mode and the launch environment. Read from the
// environment a result reports (newer engines and peers record all of it), with the runner's own
// launch record as the fallback; what neither holds is "not recorded", never guessed.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core_use.h"
#include "report/model/groups.h"

namespace mt {

inline constexpr const char* kNotRecorded = "not recorded";

// The result's `environment` object, else its provenance row's software stack; an empty object when neither.
nlohmann::json trial_environment(const ReportTrial& trial);

// One field of an environment as text: strings as they are, whole numbers without decimals, booleans
// yes/no, objects as "NAME=value" pairs; "" when absent.
std::string environment_text(const nlohmann::json& environment, const std::string& key);

// Fields that describe how one trial was launched or what it measured rather than the machine or the
// build (threads, environment values, the BLAS probe): shown per configuration, never part of a stack.
bool is_per_launch_field(const std::string& key);

CoreUse core_use(const ReportTrial& trial);
// The group's first trial, oversubscribed when any of its trials was.
CoreUse core_use(const Group& group);

// "4 × 1 = 4 > 2 cores ⚠oversubscribed", "2 × 1 = 2 of 2 cores", "2 × 1 (cores not recorded)".
std::string core_use_cell(const CoreUse& use);

}  // namespace mt
