#pragma once
// A trial as JSON, stored with it in the database, so `rerun` can relaunch exactly what was
// planned even after the experiment file has changed.
#include <string>

#include "experiment/experiment.h"
#include "experiment/trial.h"

namespace mt {

std::string trial_to_json(const Trial& trial);
Trial trial_from_json(const std::string& json);  // throws std::runtime_error on malformed input

std::string launcher_to_json(const LauncherConfig& launcher);
LauncherConfig launcher_from_json(const std::string& json);

}  // namespace mt
