#pragma once
// Reads the key that sets how an experiment's measurements are judged: `conditions:`, the thresholds
// an attempt's machine must stay within. Problems go to the reader, positioned, like every other key.
#include <yaml-cpp/yaml.h>

#include "experiment/measurement_rules.h"
#include "experiment/yaml_reader.h"

namespace mt {

void read_conditions(YamlReader& r, const YAML::Node& node, ConditionsThresholds& out);

}  // namespace mt
