#pragma once
// Reads the keys that set how an experiment's measurements are judged: `conditions:` (the thresholds
// an attempt's machine must stay within) and `repeat:` (a count, or min/max with a target width of
// the confidence interval). Problems go to the reader, positioned, like every other key.
#include <yaml-cpp/yaml.h>

#include "experiment/measurement_rules.h"
#include "experiment/yaml_reader.h"

namespace mt {

void read_conditions(YamlReader& r, const YAML::Node& node, ConditionsThresholds& out);

// `repeat: N` or `repeat: {min: 3, max: 20, target_ci_pct: 2}`; nullopt after an error.
std::optional<RepeatPolicy> read_repeat(YamlReader& r, const YAML::Node& node);

}  // namespace mt
