#pragma once
// Reading an expression (experiment/expression.h) from an experiment file: a study's `where` and
// derived values, a question's `where`. A syntax error is reported at its own column.
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "experiment/experiment.h"
#include "experiment/yaml_reader.h"

namespace mt {

// The expression at `node`, parsed to check it; nullopt (after an error naming `what`) when it is
// not a scalar or does not parse.
std::optional<ExpressionText> read_expression(YamlReader& r, const YAML::Node& node, const std::string& what);

}  // namespace mt
