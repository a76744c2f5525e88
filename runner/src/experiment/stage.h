#pragma once
// Stages of a chain: a study that declares `stages` runs them in order, sharing one work directory,
// as one trial. Each stage launches the study's workload with its own parameters and engine
// arguments (a fault, `resume: latest`), compares two checkpoints (`verify`), or runs a command,
// and says what outcome it expects. Words of a stage may use {work_dir} and the trial's values.
#include <optional>
#include <string>
#include <vector>

#include "experiment/param.h"

namespace mt {

// Outcomes a stage may expect: the attempt states a launch can end in.
extern const std::vector<std::string> kStageOutcomes;  // succeeded, failed, crashed, timed_out

// The workloads a stage may run besides its study's own.
inline constexpr const char* kVerifyStage = "verify";
inline constexpr const char* kCommandStage = "command";
// The template name of the chain's shared work directory.
inline constexpr const char* kWorkDirName = "work_dir";

// What a stage expects of its launch. Only what is set is checked.
struct StageExpectation {
  std::string outcome = "succeeded";
  std::optional<int> rank;               // the rank that crashed or reported the error
  std::optional<int> exit_code;          // the launcher's exit status
  std::optional<int> step;               // the result's error.step
  std::string message_contains;          // in the error reason or the output (template)
  std::optional<int> resumed_from_step;  // train: the result's resumed_from_step
  std::optional<int> restarts;           // relaunches under the study's `restart:`
  std::optional<bool> exact_match;       // verify: the result's exact_match
  // The checkpoint directory (template; default: the stage's checkpoint_dir parameter) afterwards:
  std::optional<std::vector<int>> ready_steps;  // exactly these steps are published (READY)
  std::vector<int> no_ready_steps;              // none of these is
  std::optional<int> latest_step;               // `latest` names this step
  std::string checkpoint_dir;

  bool checks_checkpoints() const { return ready_steps || !no_ready_steps.empty() || latest_step; }
  // "crashed on rank 1; READY steps 6; latest 6": the expectation in words.
  std::string describe() const;
};

struct Stage {
  std::string name;
  std::string workload;                  // the study's workload, verify or command
  std::vector<Param> params;             // the study's workload: overrides of the trial's values
  std::vector<std::string> engine_args;  // engine workloads: after the study's own
  std::vector<std::string> compare;      // verify: the two checkpoint step directories
  std::vector<std::string> command;      // command: argv template
  bool command_uses_launcher = true;
  double timeout_s = 0;  // 0: the trial's
  StageExpectation expect;
};

// "restarted 2 times", "no restart": how an expectation and an observation say it.
std::string restarts_text(int restarts);

// The expectation as JSON: what a stage row records.
std::string expectation_json(const StageExpectation& expect);

// Canonical JSON of a stage: stored with the trial (so a rerun runs the same stages) and hashed
// into its identity.
std::string stage_to_json(const Stage& stage);
Stage stage_from_json(const std::string& text);

}  // namespace mt
