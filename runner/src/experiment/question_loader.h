#pragma once
// Reads `questions:` of an experiment or of one study, checking each against the studies it is
// asked of: the axes exist, the baseline is one of the compared axis's values, and which way is
// better is known (the metric catalogue, a `command` metric's `better:`, or the question's own).
#include <yaml-cpp/yaml.h>

#include "experiment/experiment.h"
#include "experiment/question.h"
#include "experiment/yaml_reader.h"

namespace mt {

// Reads the list at `node` into `out`. `scope` is the declaring study, or nullptr for questions of
// the whole experiment (checked against every study in `experiment`).
void read_questions(YamlReader& r, const YAML::Node& node, const Experiment& experiment, const Study* scope,
                    std::vector<Question>& out);

// Row fields of collective results that a question may compare or hold equal ("operation", "bytes").
const std::vector<std::string>& result_row_axes();

}  // namespace mt
