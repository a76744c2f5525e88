#pragma once
// An experiment file turned into what would run: its trials, the command of each, and the
// campaign they belong to. Shared by `run` and `plan` so that what plan shows is what run does.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/matrix.h"
#include "experiment/trial_list.h"
#include "launch/provenance.h"
#include "launch/trial_command.h"

namespace CLI {
class App;
}

namespace mt {

struct ExperimentPlan {
  Experiment experiment;
  TrialList trials;
  std::int64_t excluded = 0;  // combinations dropped by exclude lists
  std::int64_t filtered = 0;  // combinations dropped by where filters
  LaunchContext context;
  ProvenanceContext provenance;
  std::string source_revision;  // commit, plus diff hash when the tree is dirty
  std::string plan_hash;
  std::string program;      // see program_beside_revision; empty where the revision names the code
  std::string campaign_id;  // see campaign_id_of
};

// A campaign is one experiment's plan at one source revision, launched one way: the experiment's
// name (what users look campaigns up by), the plan hash, the revision and the launcher (srun and
// mpirun runs of the same plan are different campaigns) make its id, and `program` where the
// revision cannot tell two programs apart (empty: the id campaigns had before it existed).
std::string campaign_id_of(const std::string& experiment, const std::string& plan_hash,
                           const std::string& source_revision, const LauncherConfig& launcher,
                           const std::string& program = "");

// An experiment in no git repository has the revision "unknown" whatever engine drives it, so its
// campaigns are told apart by the program itself: the engine binary's hash on bare metal, the
// image ID in a container. Empty where the revision is known (it names the code, as before) or the
// program cannot be identified.
std::string program_beside_revision(const ProvenanceContext& provenance);

// How jobs start on this machine: the engine to run (see locate_engine), the launcher, who we
// are and how many cores there are.
LaunchContext local_launch_context(const LauncherConfig& launcher, const std::optional<std::filesystem::path>& engine,
                                   const std::filesystem::path& experiment_dir);

// `--max-trials N` on a command that expands experiments (run, plan).
void add_max_trials_option(CLI::App& command, ExpansionLimits& limits);

// Throws RunnerError (usage) with every diagnostic when the file is invalid or expands to more
// trials than `limits` allow.
ExperimentPlan make_plan(const std::filesystem::path& experiment_file,
                         const std::optional<std::filesystem::path>& engine, const ExpansionLimits& limits = {});

}  // namespace mt
