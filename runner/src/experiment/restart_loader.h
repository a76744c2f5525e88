#pragma once
// Reading a study's `restart:` (experiment/restart_policy.h) and checking that its trials can be
// relaunched: a workload that resumes from checkpoints, and a checkpoint directory for every job
// the policy covers.
#include <optional>

#include <yaml-cpp/yaml.h>

#include "experiment/experiment.h"
#include "experiment/restart_policy.h"
#include "experiment/workload_params.h"
#include "experiment/yaml_reader.h"

namespace mt {

// The policy `node` states, or nothing after recording why it cannot be used. `workload`: the
// study's, nullptr when unknown (reported elsewhere).
std::optional<RestartPolicy> read_restart(YamlReader& r, const YAML::Node& node, const WorkloadSpec* workload);

// After the study is read: every job the policy covers has a checkpoint_dir to resume from (the
// study's own, or, in a chain, each stage's of the study's workload), and the study leaves the
// progress file to mtrun. Problems are reported at `node`, the `restart:` entry.
void check_restartable(YamlReader& r, const YAML::Node& node, const Study& study, bool study_sets_checkpoint_dir,
                       bool study_sets_progress_file);

}  // namespace mt
