#pragma once
// A trial as JSON, stored with it in the database, so `rerun` can relaunch exactly what was
// planned even after the experiment file has changed.
#include <string>

#include <nlohmann/json.hpp>

#include "experiment/experiment.h"
#include "experiment/trial.h"

namespace mt {

std::string trial_to_json(const Trial& trial);
Trial trial_from_json(const std::string& json);  // throws std::runtime_error on malformed input

// The prefix of an axis that sets an environment variable: `env.OMP_NUM_THREADS`.
inline constexpr const char* kEnvAxisPrefix = "env.";

// A trial's parameters as the store records them (`trials.parameters`, which labels, questions,
// `compare` and `history` read): its resolved parameters, then each environment variable it sets
// under its axis name `env.NAME`. Without them, trials that differ only in an `env.*` axis would
// read as one configuration. Only the spec's `params` become engine flags, never these.
nlohmann::ordered_json recorded_parameters(const Trial& trial);

// The recorded parameters of a stored trial: its `parameters` column with the environment of its
// stored spec added as `env.NAME` where missing, as trials stored before those were recorded keep
// them only in the spec. Text that does not parse adds nothing.
nlohmann::ordered_json stored_parameters(const std::string& parameters_json, const std::string& spec_json);

std::string launcher_to_json(const LauncherConfig& launcher);
LauncherConfig launcher_from_json(const std::string& json);

}  // namespace mt
