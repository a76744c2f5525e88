// mtrun run FILE: runs every trial of the experiment that has not succeeded yet, one MPI job each,
// recording each attempt before launch and its outcome after, then prints the summary.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "commands/experiment_plan.h"
#include "process.h"
#include "result_ingest.h"
#include "runner_error.h"
#include "store.h"
#include "summary.h"

namespace mt {

std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_running_launcher{0};

namespace {

std::string outcome_detail(const AttemptOutcome& o, const std::vector<MetricValue>& metrics) {
  if (o.state == AttemptState::Succeeded) {
    for (const auto& m : metrics) {
      if (m.name == "tokens_per_sec") return fmt::format("{:.0f} tokens/s", m.value);
    }
    return "";
  }
  std::string detail;
  if (o.exit_code) detail += fmt::format("exit {}", *o.exit_code);
  if (o.signal) detail += fmt::format("{}signal {}", detail.empty() ? "" : ", ", *o.signal);
  if (o.error_rank) detail += fmt::format("{}rank {}", detail.empty() ? "" : ", ", *o.error_rank);
  if (o.error_step) detail += fmt::format(", step {}", *o.error_step);
  if (o.error_reason) detail += fmt::format("{}{}", detail.empty() ? "" : ": ", *o.error_reason);
  return detail;
}

struct RunOptions {
  std::filesystem::path experiment;
  std::filesystem::path db;
  std::optional<std::filesystem::path> engine;
  bool force = false;
};

struct CampaignCounts {
  int ran = 0, skipped = 0, failed = 0;
};

void run_trial(Store& store, const ExperimentPlan& plan, const Trial& trial, std::int64_t trial_row, int index,
               const std::filesystem::path& campaign_dir, CampaignCounts& counts, std::ostream& out) {
  const int number = store.next_attempt_number(trial_row);
  const auto run_dir = campaign_dir / trial.identity / fmt::format("attempt-{}", number);
  std::filesystem::create_directories(run_dir);
  const auto result_file = run_dir / "result.json";
  const auto log_file = run_dir / "log.txt";
  TrialCommand command = build_trial_command(trial, plan.context, result_file);

  fmt::print(out, "[{}/{}] {} {} rep {} ... ", index + 1, plan.trials.size(), trial.study, trial.axes_label(),
             trial.repeat_index);
  out.flush();
  std::int64_t attempt = store.begin_attempt(trial_row, number, shell_quote(command.argv), run_dir.string(),
                                             log_file.string());
  ProcessSpec spec{command.argv, command.environment, log_file, run_dir, trial.timeout_s};
  spec.running_pid = &g_running_launcher;
  ProcessOutcome process = run_process(spec, &g_stop_requested);
  AttemptOutcome outcome = classify_attempt(process, result_file, log_file);
  store.finish_attempt(attempt, outcome);

  ++counts.ran;
  if (outcome.state != AttemptState::Succeeded) ++counts.failed;
  fmt::print(out, "{} in {:.1f} s  {}\n", to_string(outcome.state), outcome.duration_s,
             outcome_detail(outcome, outcome.metrics));
  if (outcome.state != AttemptState::Succeeded && outcome.state != AttemptState::Interrupted) {
    fmt::print(out, "      log: {}\n", log_file.string());
  }
}

int run_experiment(const RunOptions& options, std::ostream& out) {
  ExperimentPlan plan = make_plan(options.experiment, options.engine);
  Store store(options.db);
  store.add_campaign_if_new({plan.campaign_id, plan.experiment.name, plan.experiment.file.string(),
                             plan.source_revision, plan.plan_hash, int(plan.trials.size()), utc_now()});
  const auto campaign_dir = std::filesystem::absolute(options.db).parent_path() / "runs" / plan.campaign_id;
  fmt::print(out, "experiment {} — campaign {} — {} trials — engine {}\n", plan.experiment.name, plan.campaign_id,
             plan.trials.size(), plan.context.engine.string());

  std::vector<std::int64_t> rows;
  for (size_t i = 0; i < plan.trials.size(); ++i) {
    rows.push_back(store.add_trial_if_new(plan.campaign_id, plan.trials[i], int(i)));
  }
  CampaignCounts counts;
  for (size_t i = 0; i < plan.trials.size() && !g_stop_requested; ++i) {
    if (!options.force && store.latest_state(rows[i]) == AttemptState::Succeeded) {
      ++counts.skipped;
      continue;
    }
    run_trial(store, plan, plan.trials[i], rows[i], int(i), campaign_dir, counts, out);
  }

  if (counts.skipped > 0) {
    fmt::print(out, "{} trial(s) had already succeeded in this campaign and were skipped (--force re-runs them)\n",
               counts.skipped);
  }
  fmt::print(out, "\n{}", render_summary(campaign_trials(store, plan.campaign_id)));
  fmt::print(out, "\nresults: {}  (mtrun status, mtrun query \"select * from training\")\n", options.db.string());
  if (g_stop_requested) {
    fmt::print(out, "interrupted: {} trial(s) not run; `mtrun run {}` continues where this stopped\n",
               plan.trials.size() - counts.ran - counts.skipped, options.experiment.string());
    return kExitInterrupted;
  }
  if (counts.failed > 0) {
    fmt::print(out, "{} of {} trial(s) run did not succeed\n", counts.failed, counts.ran);
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_run_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "run the trials of an experiment that have not succeeded yet");
  cmd->add_option("FILE", options->experiment, "experiment YAML file")->required();
  cmd->add_flag("--force", options->force, "re-run trials that already succeeded");
  cmd->add_option("--engine", options->engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    become_child_subreaper();
    return run_experiment(*options, out);
  };
}

}  // namespace mt
