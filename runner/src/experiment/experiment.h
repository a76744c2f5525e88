#pragma once
// The experiment file as the user wrote it, after validation: studies with their defaults and
// matrix axes, each value remembering where in the file it came from.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/measurement_rules.h"
#include "experiment/question.h"
#include "experiment/trial.h"

namespace mt {

// A scalar as written in the YAML file, with its position for later messages.
struct Value {
  std::string text;
  SourcePos pos;
};

struct Axis {
  std::string name;
  std::vector<Value> values;
  SourcePos pos;
};

struct Setting {
  std::string name;
  Value value;
};

// Axes varied together: the k-th values of every axis of the group form one point.
struct ZipGroup {
  std::string name;
  std::vector<Axis> axes;  // all of the same length
  SourcePos pos;
};

// A partial assignment of parameter values, for exclude and include lists.
struct Assignment {
  std::vector<Setting> values;
  SourcePos pos;
};

// An expression as written, with the position of its first character in the file.
struct ExpressionText {
  std::string text;
  SourcePos pos;
};

struct DerivedValue {
  std::string name;
  ExpressionText expression;
};

// A stage as written: resolved values plus where its parameters were set, for messages found when
// the matrix is expanded.
struct StageSpec {
  Stage stage;
  SourcePos pos;
  std::vector<SourcePos> param_pos;  // of stage.params[i]'s value
};

struct Study {
  std::string name;
  std::string workload;
  int repeat = 1;  // rounds in the plan: repeat_policy.min
  RepeatPolicy repeat_policy;
  double timeout_s = 600;
  std::vector<Setting> defaults;         // in file order
  std::vector<Axis> axes;                // in file order; the first axis varies slowest
  std::vector<ZipGroup> zips;            // after the axes, in file order
  std::vector<Assignment> exclude;       // combinations matching any of these are dropped
  std::vector<Assignment> include;       // extra combinations: defaults plus these values
  std::vector<DerivedValue> derived;     // computed per trial, in order; usable in where and commands
  std::optional<ExpressionText> where;   // trials for which it is false are dropped
  std::vector<std::string> engine_args;  // passed verbatim, for engine flags the runner does not know
  // `command` workload: argv template ({param} placeholders) and how to read its metrics.
  std::vector<Value> command;
  bool command_uses_launcher = true;  // run under mpirun/srun with `ranks`, or directly
  std::vector<MetricRule> metrics;
  std::vector<StageSpec> stages;  // a chain: every trial runs these in order, as one attempt
  // `profile: true`: every trial runs the engine with --profile into its attempt's run directory
  // (Chrome traces per rank, the step breakdown, exposed communication); plain studies stay unprofiled.
  bool profile = false;
  RestartPolicy restart;  // `restart:`: failed jobs relaunched from their latest checkpoint
  SourcePos pos;
};

struct LauncherConfig {
  std::string type = "mpirun";
  std::vector<std::string> extra_args;
  // slurm only: arguments of the srun step that starts the ranks, whichever command allocates
  // (`--cpu-bind=cores`: salloc and sbatch take none of srun's step options).
  std::vector<std::string> step_args;
  std::filesystem::path hostfile;  // absolute, or empty for the local machine
  std::string mode = "srun";       // slurm only: each trial through `srun` or `sbatch --wait`
  // OMP_NUM_THREADS of every rank; 0: this machine's cores / ranks (jobs on this machine only).
  int threads_per_rank = 0;
  // slurm only: a trial still queued after this long is stopped (timed_out, "never started");
  // 0: it waits as long as the scheduler holds it. Its timeout_s counts from its start either way.
  double queue_timeout_s = 0;
  // For trials run at the same time (`parallel`): the CPUs of each trial in flight on this machine
  // (mpirun without a hostfile, Open MPI's list syntax "0-3,8"), or the hosts of each from the
  // hostfile ("n1,n2"); disjoint. Trial k in flight uses set k.
  std::vector<std::string> cpu_sets;
  std::vector<std::string> host_sets;
};

struct Experiment {
  std::string name;
  std::string description;
  std::filesystem::path file;  // absolute path of the YAML file
  std::string file_as_given;   // the path as the user gave it: what messages about the file name
  LauncherConfig launcher;
  std::string order = "interleaved";  // within a round: "interleaved" (matrix order) or "shuffled"
  std::uint64_t seed = 0;             // of the shuffled order (experiment/run_order.h)
  ConditionsThresholds conditions;    // `conditions:` — when an attempt counts as disturbed
  int parallel = 1;                   // trials in flight at once (experiment/parallel_rules.h)
  std::vector<Study> studies;
  // `questions:` of the experiment, then of each study (with `study` set), in file order.
  std::vector<Question> questions;
};

}  // namespace mt
