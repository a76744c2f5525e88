// mtrun plan FILE: every trial, its identity and its exact command — nothing is run.
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "commands/commands.h"
#include "commands/experiment_plan.h"
#include "experiment/run_order.h"
#include "launch/stage_command.h"
#include "report/sections/answers_section.h"
#include "run/adaptive_repeats.h"
#include "run/campaign_runner.h"
#include "run/job_look.h"
#include "run/progress.h"
#include "run/quiet_machine.h"

namespace mt {

namespace {

// What the experiment asks for before each trial, in words ("" when nothing); `place`: where the
// look for a quiet machine would be taken.
std::string before_each_trial(const ConditionsThresholds& conditions, const LookPlace& place) {
  std::vector<std::string> waits;
  if (conditions.settle_s > 0) waits.push_back(fmt::format("settle {:g} s with nothing running", conditions.settle_s));
  if (conditions.wait_quiet_s > 0 && place.where == LookPlace::Where::InJob) {
    waits.push_back(
        fmt::format("wait up to {:g} s for a quiet machine on the job's own nodes, inside its job before "
                    "its ranks start (`mtrun look --allocation`; {})",
                    conditions.wait_quiet_s, place.why_in_job));
  } else if (conditions.wait_quiet_s > 0) {
    const std::string where = describe_look_place(place);
    waits.push_back(fmt::format("wait up to {:g} s for a quiet machine{}", conditions.wait_quiet_s,
                                where.empty() ? "" : " " + where));
  }
  return fmt::format("{}", fmt::join(waits, ", then "));
}

int print_plan(const std::filesystem::path& experiment, const std::optional<std::filesystem::path>& engine,
               const ExpansionLimits& limits, std::ostream& out) {
  ExperimentPlan plan = make_plan(experiment, engine, limits);
  const std::filesystem::path placeholder = "RUN_DIR/result.json";
  const LookPlace place = look_place(plan.context, mtrun_executable());
  // Where each trial's job looks for quiet nodes itself, its command shows the look.
  const ConditionsThresholds& conditions = plan.experiment.conditions;
  const std::vector<std::string> job_look =
      job_looks_first(place, conditions.wait_quiet_s, plan.experiment.parallel)
          ? job_look_command(place.mtrun, conditions.wait_quiet_s, conditions, placeholder.parent_path() / kJobLookFile)
          : std::vector<std::string>{};
  for (size_t i = 0; i < plan.trials.size(); ++i) {
    const Trial t = plan.trials[i];
    fmt::print(out, "{} {} (timeout {} s{})\n", t.identity.substr(0, 12), trial_label(t), t.timeout_s,
               t.restart.enabled() ? "; " + t.restart.describe() : "");
    if (!t.is_chain()) {
      fmt::print(out, "    {}\n", command_line(build_trial_command(t, plan.context, placeholder, "mtrun", job_look)));
      continue;
    }
    const ChainDirs dirs{placeholder.parent_path()};
    for (std::size_t k = 0; k < t.stages.size(); ++k) {
      const StageLaunch stage = prepare_stage(t, k, dirs, plan.context);
      fmt::print(out, "    stage {} {} (expects {})\n      {}\n", k + 1, t.stages[k].name, stage.expect.describe(),
                 command_line(stage.command));
    }
  }
  const bool uncommitted = plan.source_revision.find('+') != std::string::npos;
  const std::string program = plan.program.empty()
                                  ? ""
                                  : fmt::format(", so the engine {} {} tells campaigns apart",
                                                plan.provenance.bare_metal() ? "binary" : "image", plan.program);
  fmt::print(out, "{} trials in campaign {} (revision {}{}{}); {} combination(s) excluded, {} filtered by where\n",
             plan.trials.size(), plan.campaign_id, plan.source_revision.substr(0, 12),
             uncommitted ? " with uncommitted changes" : "", program, plan.excluded, plan.filtered);
  fmt::print(out, "order: {}, as listed\n", order_text(plan.experiment.order, plan.experiment.seed));
  if (const auto lines = adaptive_plan_lines(adaptive_studies(plan.experiment), plan.trials); !lines.empty()) {
    fmt::print(out, "adaptive repeats (repeat: {{min, max, target_ci_pct}}), beyond the trials listed:\n");
    for (const auto& line : lines) fmt::print(out, "  {}\n", line);
  }
  if (plan.experiment.questions.empty()) {
    fmt::print(out,
               "questions: none declared (`questions:`); the run and the report answer the default ones where the "
               "axes suggest them (each strategy against the engine's reference, each rank count against the "
               "smallest)\n");
  } else {
    fmt::print(out, "questions, answered at the end of the run and first in its report:\n");
    for (const auto& q : plan.experiment.questions) fmt::print(out, "  {}\n", question_title(q, AnswerText::Plain));
  }
  if (const std::string waits = before_each_trial(plan.experiment.conditions, place); !waits.empty()) {
    const double settling = plan.experiment.conditions.settle_s * double(plan.trials.size());
    const std::string cost = plan.experiment.parallel > 1 ? "; not applied while trials run at once (parallel)"
                             : settling > 0 ? fmt::format("; at least {} of settling over these {} trials",
                                                          format_duration(settling), plan.trials.size())
                                            : "";
    fmt::print(out,
               "before each trial: {} (conditions: settle_s, wait_quiet_s; run --settle, --wait-quiet override){}\n",
               waits, cost);
  }
  if (plan.experiment.parallel > 1) {
    const LauncherConfig& l = plan.experiment.launcher;
    fmt::print(out, "parallel: up to {} trials in flight; each command above then {}\n", plan.experiment.parallel,
               l.type == "slurm"     ? "asks for nodes of its own (--exclusive)"
               : !l.hostfile.empty() ? "keeps to the host set of its slot (--host, host_sets)"
                                     : "keeps to the CPU set of its slot (taskset -c, cpu_sets)");
  }
  return 0;
}

}  // namespace

CommandRunner register_plan_command(CLI::App& app, const GlobalOptions&) {
  struct Options {
    std::filesystem::path experiment;
    std::optional<std::filesystem::path> engine;
    ExpansionLimits limits;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("plan", "show every trial and its exact command without running anything");
  cmd->add_option("FILE", options->experiment, "experiment YAML file")->required();
  cmd->add_option("--engine", options->engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  add_max_trials_option(*cmd, options->limits);
  return
      [options](std::ostream& out) { return print_plan(options->experiment, options->engine, options->limits, out); };
}

}  // namespace mt
