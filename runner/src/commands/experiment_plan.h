#pragma once
// An experiment file turned into what would run: its trials, the command of each, and the
// campaign they belong to. Shared by `run` and `plan` so that what plan shows is what run does.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "launch/provenance.h"
#include "experiment/trial.h"
#include "launch/trial_command.h"

namespace mt {

struct ExperimentPlan {
  Experiment experiment;
  std::vector<Trial> trials;
  int excluded = 0;  // combinations dropped by exclude lists
  int filtered = 0;  // combinations dropped by where filters
  LaunchContext context;
  ProvenanceContext provenance;
  std::string source_revision;  // commit, plus diff hash when the tree is dirty
  std::string plan_hash;
  std::string campaign_id;  // from plan hash and source revision
};

// How jobs start on this machine: the engine to run (see locate_engine), the launcher, who we
// are and how many cores there are.
LaunchContext local_launch_context(const LauncherConfig& launcher, const std::optional<std::filesystem::path>& engine,
                                   const std::filesystem::path& experiment_dir);

// Throws RunnerError (usage) with every diagnostic when the file is invalid.
ExperimentPlan make_plan(const std::filesystem::path& experiment_file,
                         const std::optional<std::filesystem::path>& engine);

}  // namespace mt
