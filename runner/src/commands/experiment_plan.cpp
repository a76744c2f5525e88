#include "commands/experiment_plan.h"

#include <unistd.h>

#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.h"
#include "commands/number_options.h"
#include "experiment/experiment_check.h"
#include "experiment/identity.h"
#include "experiment/matrix.h"
#include "launch/engine_workloads.h"
#include "runner_error.h"
#include "store/trial_json.h"

namespace mt {

ExperimentPlan make_plan(const std::filesystem::path& experiment_file,
                         const std::optional<std::filesystem::path>& engine, const ExpansionLimits& limits) {
  // The engine's workloads are validated against the engine's own description of its flags.
  load_engine_workloads(locate_engine(engine));
  CheckedExperiment checked = check_experiment(experiment_file, limits);
  if (!checked.errors.empty()) throw RunnerError(kExitUsage, format_diagnostics(checked.errors));
  ExperimentPlan plan;
  plan.experiment = std::move(*checked.experiment);
  plan.trials = std::move(checked.expansion.trials);
  plan.excluded = checked.expansion.excluded;
  plan.filtered = checked.expansion.filtered;
  plan.context = local_launch_context(plan.experiment.launcher, engine, plan.experiment.file.parent_path());
  plan.provenance = capture_provenance_context(plan.experiment.file.parent_path(), plan.context.engine);
  plan.source_revision = plan.provenance.source.revision();
  plan.plan_hash = mt::plan_hash(plan.trials);
  plan.program = program_beside_revision(plan.provenance);
  plan.campaign_id =
      campaign_id_of(plan.experiment.name, plan.plan_hash, plan.source_revision, plan.context.launcher, plan.program);
  return plan;
}

std::string campaign_id_of(const std::string& experiment, const std::string& plan_hash,
                           const std::string& source_revision, const LauncherConfig& launcher,
                           const std::string& program) {
  std::string identity = experiment + "@" + plan_hash + "@" + source_revision + "@" + launcher_to_json(launcher);
  if (!program.empty()) identity += "@" + program;
  return content_hash(identity).substr(0, 12);
}

std::string program_beside_revision(const ProvenanceContext& provenance) {
  if (provenance.source.revision() != "unknown") return "";
  return provenance.bare_metal() ? provenance.engine_binary_hash : provenance.image_id;
}

void add_max_trials_option(CLI::App& command, ExpansionLimits& limits) {
  command
      .add_option("--max-trials", limits.max_trials,
                  fmt::format("refuse experiments expanding to more trials than this (default {})", kDefaultMaxTrials))
      ->check(whole_number_from_to(1, kMostMaxTrials));
}

LaunchContext local_launch_context(const LauncherConfig& launcher, const std::optional<std::filesystem::path>& engine,
                                   const std::filesystem::path& experiment_dir) {
  LaunchContext context;
  context.engine = locate_engine(engine);
  context.launcher = launcher;
  context.experiment_dir = experiment_dir;
  context.running_as_root = ::geteuid() == 0;
  context.cores = int(std::max(1u, std::thread::hardware_concurrency()));
  read_slurm_allocation(context);
  return context;
}

std::filesystem::path mtrun_executable() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec);
}

std::filesystem::path locate_engine(const std::optional<std::filesystem::path>& explicit_path) {
  std::filesystem::path engine;
  std::string source;
  if (explicit_path) {
    engine = *explicit_path;
    source = "--engine";
  } else if (const char* env = std::getenv("MTENGINE"); env && *env) {
    engine = env;
    source = "MTENGINE";
  } else {
    engine = mtrun_executable().parent_path() / "mtengine";
    source = "the directory of mtrun";
  }
  std::error_code ec;
  engine = std::filesystem::absolute(engine, ec);
  if (!std::filesystem::is_regular_file(engine) || ::access(engine.c_str(), X_OK) != 0) {
    throw RunnerError(kExitUsage, "mtengine not found at " + engine.string() + " (from " + source +
                                      "); build it, or point --engine or MTENGINE at it");
  }
  return engine;
}

}  // namespace mt
