#pragma once
// Reads a study's `stages`: each stage's workload, parameters, engine arguments, checkpoints to
// compare or command, and what it expects, every problem reported at its place in the file.
#include <set>
#include <string>

#include "experiment/experiment.h"
#include "experiment/workload_params.h"
#include "experiment/yaml_reader.h"

namespace mt {

struct StageContext {
  const WorkloadSpec* workload = nullptr;  // the study's; nullptr when it is unknown
  std::set<std::string> known;             // the study's parameters and derived values
  bool study_sets_checkpoint_dir = false;  // in its defaults, matrix or zip groups
};

// Reads `node` (the study's `stages`) into study.stages; problems go to the reader.
void read_stages(YamlReader& r, const YAML::Node& node, const StageContext& context, Study& study);

}  // namespace mt
