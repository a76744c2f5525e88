#pragma once
// One trial: a single, fully resolved run of one study's workload — one MPI job.
#include <string>
#include <vector>

#include "experiment/param.h"
#include "experiment/restart_policy.h"
#include "experiment/stage.h"

namespace mt {

// How a `command` workload's metric is read: the first capture group of `regex` in the program's
// output, or the number at dotted `json_path` in the JSON file it wrote ({result_file}). `better`
// ("higher", "lower", or "" when not declared) says which way is an improvement; it is how the
// number is judged, not how it is measured, so it is no part of the trial's identity.
struct MetricRule {
  std::string name;
  std::string regex;
  std::string json_path;
  std::string better;
};

// Where a profiled trial's engine writes its traces, inside the attempt's run directory: mtrun
// passes `--profile RUN_DIR/profile` and keeps what it finds there (store/attempt_files.h).
inline constexpr const char* kProfileDirName = "profile";

struct Trial {
  std::string study;
  std::string workload;
  int repeat_index = 0;
  int ranks = 1;
  double timeout_s = 600;
  std::vector<Param> params;             // every resolved parameter (defaults, then axes), sorted by name
  std::vector<std::string> engine_args;  // verbatim extra engine arguments
  std::vector<Param> environment;        // variables set for this trial's job (e.g. NCCL_ALGO)
  std::vector<Param> derived;            // values computed from the parameters (study `derived:`)
  // `command` workload: argv template with {name} placeholders, launch mode, metric rules.
  std::vector<std::string> command;
  bool command_uses_launcher = true;
  std::vector<MetricRule> metrics;
  std::vector<Stage> stages;            // a chain: run in order, in one work directory, as one attempt
  bool profile = false;                 // run the engine with --profile into the attempt's run directory
  RestartPolicy restart;                // relaunch a failed job from its latest checkpoint (restart:)
  std::vector<std::string> axis_names;  // the study's axes: what varies between trials
  std::string identity;                 // hash of study, workload, params and repeat index
  std::string group_key;                // the same without the repeat index: trials that are repeats of each other

  // The value of `name`, or `fallback` when the trial does not set it.
  std::string param(const std::string& name, const std::string& fallback = "") const;
  bool is_chain() const { return !stages.empty(); }
  // The workload the store records: the study's, or "chain" for a chain of stages.
  std::string stored_workload() const { return is_chain() ? "chain" : workload; }
  // "strategy=ddp ranks=2 …" over the study's axes, for display.
  std::string axes_label() const;
};

}  // namespace mt
