// mtrun run FILE: runs every trial of the experiment that has not succeeded yet in its campaign
// (like make), one launcher job each, then prints the summary.
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "run/campaign_runner.h"
#include "run/lease_keeper.h"
#include "commands/advised_command.h"
#include "commands/campaign_command.h"
#include "commands/commands.h"
#include "commands/number_options.h"
#include "commands/experiment_plan.h"
#include "commands/new_program_note.h"
#include "experiment/parallel_rules.h"
#include "experiment/run_order.h"
#include "experiment/workload_params.h"
#include "launch/process.h"
#include "report/report.h"
#include "run/adaptive_repeats.h"
#include "run/job_look.h"
#include "run/quiet_machine.h"
#include "runner_error.h"
#include "store/campaign_lookup.h"
#include "store/question_json.h"
#include "store/trial_json.h"

namespace mt {

std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_running_launcher{0};
std::atomic<int> g_running_launchers[kMostParallel] = {};
std::atomic<const char*> g_stop_notice{nullptr};

namespace {

struct RunOptions {
  std::filesystem::path experiment;
  std::filesystem::path db;
  std::optional<std::filesystem::path> engine;
  bool force = false;
  ExpansionLimits limits;
  MeasurementSettings measurement;
};

// What the campaign records about how it is measured: the thresholds and adaptive repeat policies.
std::string measurement_json(const Experiment& experiment) {
  return fmt::format("{{\"conditions\":{},\"repeat\":{}}}", thresholds_to_json(experiment.conditions),
                     repeat_policies_to_json(adaptive_studies(experiment)));
}

// Trials in flight at once where they cannot disturb each other, on CPUs this machine has: else a
// usage error, before anything runs.
void check_parallel(const LauncherConfig& launcher, int parallel) {
  if (std::string why = parallel_problem(launcher, std::max(1, parallel)); !why.empty()) {
    throw RunnerError(kExitUsage, why);
  }
  if (parallel > kMostParallel) {
    throw RunnerError(kExitUsage,
                      fmt::format("parallel is {}; at most {} trials run at once", parallel, kMostParallel));
  }
  if (launcher.hostfile.empty()) {
    if (std::string why = cpu_sets_beyond_this_machine(launcher.cpu_sets); !why.empty()) {
      throw RunnerError(kExitUsage, why);
    }
  }
}

// The trials a run launches, in campaign order.
struct RunList {
  PendingTrials pending;
  int skipped = 0;  // succeeded before, not run again
  int added = 0;    // rounds adaptive repeats added on earlier runs, whatever their state
};

// Registers the plan's trials on first sight and lists those that have not succeeded (every one with
// --force), then the rounds adaptive repeats added on earlier runs that have not succeeded (every one
// with --force): running the file again finishes what a stopped runner left, adaptive rounds
// included, and --force leaves no older attempt in the campaign's means.
RunList trials_to_run(Store& store, const ExperimentPlan& plan, bool force) {
  RunList list;
  std::vector<std::size_t> plan_index;  // of each planned trial to run
  // Trials are registered in transactions of many (one per trial is slow), but not all in one: a
  // runner of another campaign must not wait long for the write lock.
  constexpr size_t kTrialsPerCommit = 10000;
  std::optional<Transaction> registration;
  for (size_t i = 0; i < plan.trials.size(); ++i) {
    if (i % kTrialsPerCommit == 0) {
      if (registration) registration->commit();
      registration.emplace(store.db());
    }
    std::int64_t row = store.add_trial_if_new(plan.campaign_id, plan.trials[i], int(i));
    if (!force && store.latest_state(row) == AttemptState::Succeeded) {
      ++list.skipped;
    } else {
      list.pending.rows.push_back(row);
      plan_index.push_back(i);
    }
  }
  if (registration) registration->commit();
  const AddedRounds added =
      added_rounds_to_run(store.db(), plan.campaign_id, plan.trials.size(), force, adaptive_studies(plan.experiment));
  list.added = added.added;
  list.skipped += added.added - int(added.to_run.size());
  list.pending.rows.insert(list.pending.rows.end(), added.to_run.begin(), added.to_run.end());
  // A planned trial is built from the plan, an added round from what the store holds of it.
  list.pending.trial = [&plan, &store, plan_index = std::move(plan_index), added_rows = added.to_run](std::size_t k) {
    return k < plan_index.size() ? plan.trials[plan_index[k]] : store.trial_spec(added_rows[k - plan_index.size()]);
  };
  return list;
}

// What finishes a run that was stopped, after "interrupted: N trial(s) not run; ". Running the file
// again runs what has not succeeded, and only `run` adds adaptive rounds. A forced run cannot be
// picked up where it stopped: the trials it did not reach succeeded before, so neither a plain `run`
// nor `rerun --failed` would run them.
std::string how_to_finish(const RunOptions& options, bool adaptive, const std::string& campaign_id) {
  const std::string file = options.experiment.string();
  if (options.force) {
    return fmt::format("they keep their earlier attempts; {} measures every trial again",
                       advised_command(options.db, {"run", file, "--force"}));
  }
  const std::string run = advised_command(options.db, {"run", file});
  if (adaptive) return fmt::format("{} runs them, then the adaptive rounds still due", run);
  return fmt::format("{} or {} completes the campaign", run,
                     advised_command(options.db, {"rerun", "--failed", "--campaign", campaign_id}));
}

int run_experiment(const RunOptions& options, std::ostream& out) {
  ExperimentPlan plan = make_plan(options.experiment, options.engine, options.limits);
  MeasurementSettings measurement = options.measurement;
  measurement.conditions = plan.experiment.conditions;
  measurement.adaptive = adaptive_studies(plan.experiment);
  if (measurement.parallel == 0) measurement.parallel = plan.experiment.parallel;
  // Before the database is touched: a run refused for how it would run leaves no campaign behind.
  check_parallel(plan.context.launcher, measurement.parallel);
  Store store(options.db);
  store.db().wait_for_locks(Store::kLockPatience, &g_stop_requested);  // Ctrl-C stops a wait for the lock
  // Before the campaign is added: afterwards it is no longer new.
  const std::string program_note = new_program_note(store.db(), plan);
  CampaignLease lease(store.db(), plan.campaign_id, RunnerId::self(), std::time(nullptr));
  recover_stale_attempts(store, lease, out);
  store.add_campaign_if_new(
      {plan.campaign_id, plan.experiment.name, plan.experiment.file.string(), plan.source_revision, plan.plan_hash,
       launcher_to_json(plan.context.launcher), int(plan.trials.size()), utc_now()},
      {plan.experiment.order,
       plan.experiment.order == kOrderShuffled ? std::optional(plan.experiment.seed) : std::nullopt,
       measurement_json(plan.experiment)});
  store.record_questions(plan.campaign_id, questions_to_json(plan.experiment.questions));
  if (const std::string reference = reference_strategy(); !reference.empty())
    store.record_reference_strategy(plan.campaign_id, reference);
  const RunList list = trials_to_run(store, plan, options.force);
  fmt::print(out, "experiment {}: campaign {}, {} trials{}, {} to run, order {}; engine {}\n", plan.experiment.name,
             plan.campaign_id, plan.trials.size(),
             list.added > 0 ? fmt::format(" (and {} added by adaptive repeats)", list.added) : "",
             list.pending.rows.size(), order_text(plan.experiment.order, plan.experiment.seed),
             plan.context.engine.string());
  if (!program_note.empty()) fmt::print(out, "{}\n", program_note);
  if (list.skipped > 0) {
    fmt::print(out, "{} trial(s) already succeeded in this campaign and are skipped (--force re-runs them)\n",
               list.skipped);
  }
  return run_campaign_trials(store, lease, plan.context, plan.provenance, list.pending, measurement,
                             how_to_finish(options, !measurement.adaptive.empty(), plan.campaign_id), options.db, out);
}

// The machine before any timing: a warning when busy, a refusal with --require-quiet. Where the
// ranks run on other nodes (a Slurm allocation, a hostfile), those nodes; where each trial gets nodes
// of its own none can be looked at before the trials, which --require-quiet cannot accept: each
// trial's job looks at its own nodes first, when a wait is asked for.
void look_at_machine(const MeasurementSettings& settings, int parallel, const LookPlace& place, std::ostream& out) {
  if (place.where == LookPlace::Where::InJob) {
    if (settings.require_quiet) {
      throw RunnerError(kExitUsage,
                        fmt::format("--require-quiet: no machine to look at before the trials: {}", place.why_in_job));
    }
    if (job_looks_first(place, settings.wait_quiet_seconds(), parallel)) {
      fmt::print(out,
                 "note: no look for a quiet machine before the trials: {}; each trial's job looks at its own nodes "
                 "first, waiting up to {:g} s (wait_quiet_s, --wait-quiet)\n",
                 place.why_in_job, settings.wait_quiet_seconds());
    }
    return;
  }
  QuietCheck check = check_quiet(settings.conditions, settings.require_quiet ? settings.wait_quiet_seconds() : 0,
                                 &g_stop_requested, place);
  if (g_stop_requested) return;  // stopped while waiting: the caller says so
  const std::string where = describe_look_place(place);
  if (!check.measured && !check.unavailable.empty()) {
    if (settings.require_quiet) {
      throw RunnerError(kExitBusy, fmt::format("cannot tell whether the machine is quiet ({}: {}); not starting "
                                               "(--require-quiet)",
                                               where, check.unavailable));
    }
    fmt::print(out, "warning: could not look for a quiet machine {}: {}\n", where, check.unavailable);
    return;
  }
  if (!check.busy()) return;
  const std::string subject = place.where == LookPlace::Where::Nodes ? place.nodes_noun + " are" : "the machine is";
  if (settings.require_quiet) {
    throw RunnerError(kExitBusy,
                      fmt::format("{} busy ({}){}; not starting (--require-quiet)", subject, busy_reasons(check),
                                  check.waited_s > 0 ? fmt::format(" after waiting {:.0f} s", check.waited_s) : ""));
  }
  fmt::print(out, "warning: {} busy: {}; timings may suffer{}\n", subject, busy_reasons(check),
             settings.wait_quiet_seconds() > 0 ? " (each trial waits for a quiet machine first)" : "");
}

// The answers to the campaign's questions as `mtrun report` gives them, in plain text; a line saying
// why where its results cannot be read as a report reads them.
std::string campaign_answers(Database& db, const std::string& campaign_id) {
  try {
    return render_answers_text(load_report_data(db, {campaign_by_id(db, campaign_id)}));
  } catch (const RunnerError& e) {
    return fmt::format("answers: none here: {}\n", e.what());
  }
}

}  // namespace

int run_campaign_trials(Store& store, const CampaignLease& lease, const LaunchContext& context,
                        const ProvenanceContext& provenance, const PendingTrials& trials,
                        const MeasurementSettings& settings, const std::string& how_to_finish,
                        const std::filesystem::path& db, std::ostream& out) {
  const std::string& campaign_id = lease.campaign_id();
  const int parallel = std::max(1, settings.parallel);
  check_parallel(context.launcher, parallel);
  const bool adaptive_due = !settings.adaptive.empty();
  std::vector<std::string> per_trial_waits;
  if (settings.settle_seconds() > 0) per_trial_waits.push_back("settling (settle_s, --settle)");
  if (settings.wait_quiet_seconds() > 0)
    per_trial_waits.push_back("waiting for a quiet machine (wait_quiet_s, --wait-quiet)");
  if (parallel > 1 && !per_trial_waits.empty()) {
    fmt::print(out,
               "note: {} {} not applied before each trial when {} run at once: the trials in flight keep the "
               "machine busy\n",
               fmt::join(per_trial_waits, " and "), per_trial_waits.size() > 1 ? "are" : "is", parallel);
  }
  const LookPlace place = look_place(context, mtrun_executable());
  // Looking (and waiting) for a quiet machine stops cleanly too: what was printed stays printed.
  g_stop_notice = "\nmtrun: stopping before any trial starts (again to exit now)\n";
  if (!trials.rows.empty() || adaptive_due) look_at_machine(settings, parallel, place, out);
  if (g_stop_requested) throw RunnerError(kExitInterrupted, "stopped before any trial started");
  LeaseKeeper keeper(db, campaign_id, lease.holder());
  CampaignRun run;
  run.campaign_id = campaign_id;
  run.lease_lost = &keeper.lost();
  run.context = context;
  run.runs_dir = campaign_runs_dir(db, campaign_id);
  run.live_progress = ::isatty(STDOUT_FILENO) == 1;
  run.stop = &g_stop_requested;
  // Also while a trial settles or waits for a quiet machine, with none running.
  g_stop_notice = parallel > 1 ? "\nmtrun: stopping: no trial starts, and those running are terminated (again to "
                                 "exit now)\n"
                               : "\nmtrun: stopping: no trial starts, and one running is terminated (again to exit "
                                 "now)\n";
  run.running_launcher = &g_running_launcher;
  run.running_launchers = g_running_launchers;
  run.parallel = parallel;
  run.guard = mtrun_executable();
  run.provenance = provenance;
  run.conditions = settings.conditions;
  run.settle_s = settings.settle_seconds();
  run.wait_quiet_s = settings.wait_quiet_seconds();
  run.look_place = place;
  CampaignResult result = run_trials(store, run, trials, out);
  // Adaptive rounds, one at a time, while the campaign runs cleanly and a configuration needs one.
  while (adaptive_due && !result.stopped && !result.lease_lost) {
    PendingTrials round = next_adaptive_round(store, campaign_id, settings.adaptive, out);
    if (round.rows.empty()) break;
    CampaignResult more = run_trials(store, run, round, out);
    result.ran += more.ran;
    result.failed += more.failed;
    result.disturbed += more.disturbed;
    result.not_run += more.not_run;
    result.stopped = more.stopped;
    result.lease_lost = more.lease_lost;
  }
  std::string answers = result.stopped || result.lease_lost ? "" : campaign_answers(store.db(), campaign_id);
  // Where a configuration stopped at max, its mean is less certain than the experiment asked for.
  if (!result.stopped && !result.lease_lost)
    answers += adaptive_outcome_line(store.db(), campaign_id, settings.adaptive);
  return finish_campaign(store, campaign_id, result, answers, how_to_finish, db, out);
}

void add_quiet_options(CLI::App& command, MeasurementSettings& settings) {
  command
      .add_option("--settle", settings.settle_s,
                  "before each trial, first wait SECONDS with nothing running, so that what the last job left "
                  "behind settles (default: the experiment's conditions: settle_s, else 0; docs/measurement.md)")
      ->check(number_from_to(0, kMostSettleSeconds));
  command
      .add_option("--wait-quiet", settings.wait_quiet_s,
                  "before each trial, wait up to SECONDS for a quiet machine (default: the experiment's conditions: "
                  "wait_quiet_s, else 0; docs/measurement.md)")
      ->check(number_from_to(0, kMostWaitQuietSeconds));
  command.add_flag("--require-quiet", settings.require_quiet,
                   "refuse to start timing on a busy machine (exit 3); after waiting, where trials wait for a quiet "
                   "machine (--wait-quiet, wait_quiet_s)");
  command
      .add_option("--parallel", settings.parallel,
                  "trials in flight at once (default: the experiment's `parallel`, else 1); only where they cannot "
                  "disturb each other: Slurm, or disjoint cpu_sets/host_sets")
      ->check(whole_number_from_to(1, kMostParallel));
}

std::filesystem::path campaign_runs_dir(const std::filesystem::path& db, const std::string& campaign_id) {
  const std::filesystem::path file = std::filesystem::absolute(db);
  return file.parent_path() / "runs" / file.filename() / campaign_id;
}

CommandRunner register_run_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "run the trials of an experiment that have not succeeded yet");
  cmd->add_option("FILE", options->experiment, "experiment YAML file")->required();
  cmd->add_flag("--force", options->force,
                "re-run every trial, those that already succeeded and the rounds adaptive repeats added included");
  cmd->add_option("--engine", options->engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  add_max_trials_option(*cmd, options->limits);
  add_quiet_options(*cmd, options->measurement);
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    become_child_subreaper();
    return run_experiment(*options, out);
  };
}

}  // namespace mt
