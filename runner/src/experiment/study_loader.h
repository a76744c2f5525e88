#pragma once
// Reads one study of an experiment file: workload, defaults, matrix axes, zip groups, exclude and
// include lists, derived values, the where filter, and the command workload's template.
// Its `questions:` are read by the experiment loader once every study is known (question_loader.h).
#include "experiment/experiment.h"
#include "experiment/yaml_reader.h"

namespace mt {

struct StudyDefaults {
  int repeat = 1;
  RepeatPolicy repeat_policy;
  double timeout_s = 600;
};

// Reads `node` (the index-th study); problems go to the reader. Returns nullopt if it is not a
// mapping at all.
std::optional<Study> read_study(YamlReader& r, const YAML::Node& node, int index, const StudyDefaults& defaults);

}  // namespace mt
