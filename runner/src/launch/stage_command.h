#pragma once
// Turns one stage of a chain into what runs: the trial it launches (the chain's values with the
// stage's parameters and arguments, every {work_dir} and {name} filled in), its exact command, and
// its expectation with the checkpoint directory and message resolved. Shared by `run` and `plan`.
#include <filesystem>
#include <string>

#include "experiment/trial.h"
#include "launch/launcher.h"
#include "launch/trial_command.h"

namespace mt {

struct StageLaunch {
  Trial trial;  // the stage as a trial of its own workload (a command's argv still a template)
  LaunchCommand command;
  StageExpectation expect;  // templates expanded; checkpoint_dir resolved ("" when none applies)
};

// Where a chain's stages run: the shared work directory, and stage k's own directory for its log
// and result file.
struct ChainDirs {
  std::filesystem::path run_dir;  // the attempt's
  std::filesystem::path work_dir() const { return run_dir / "work"; }
  std::filesystem::path stage_dir(std::size_t index, const Stage& stage) const;
};

// Stage `index` of `chain`. Throws std::invalid_argument when a template cannot be expanded (a
// stored trial that no longer fits; files are validated before anything runs).
StageLaunch prepare_stage(const Trial& chain, std::size_t index, const ChainDirs& dirs, const LaunchContext& context,
                          const std::string& job_name = "mtrun");

// Every stage's command, one "stage NAME: COMMAND" line each: what a chain's attempt records and
// `mtrun plan` shows.
std::string chain_command_text(const Trial& chain, const ChainDirs& dirs, const LaunchContext& context);

}  // namespace mt
