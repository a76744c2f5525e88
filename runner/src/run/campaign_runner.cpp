#include "run/campaign_runner.h"

#include <ostream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "launch/process.h"
#include "launch/stage_command.h"
#include "run/chain_runner.h"
#include "run/conditions_watch.h"
#include "run/quiet_machine.h"
#include "run/progress.h"
#include "store/attempt_files.h"
#include "store/result_ingest.h"
#include "runner_error.h"
#include "run/summary.h"

namespace mt {
namespace {

std::string outcome_detail(const AttemptOutcome& o) {
  if (o.state == AttemptState::Succeeded) {
    for (const auto& m : o.metrics) {
      if (m.name == "tokens_per_sec") return fmt::format("{:.0f} tokens/s", m.value);
    }
    return o.rows.empty() ? "" : fmt::format("{} rows", o.rows.size());
  }
  std::vector<std::string> parts;
  if (o.exit_code) parts.push_back(fmt::format("exit {}", *o.exit_code));
  if (o.signal) parts.push_back(fmt::format("signal {}", *o.signal));
  if (o.error_rank) parts.push_back(fmt::format("rank {}", *o.error_rank));
  if (o.error_step) parts.push_back(fmt::format("step {}", *o.error_step));
  std::string detail = fmt::format("{}", fmt::join(parts, ", "));
  if (o.error_reason) detail += (detail.empty() ? "" : ": ") + *o.error_reason;
  return detail;
}

struct Finished {
  AttemptOutcome outcome;
  std::filesystem::path log_file;
  std::optional<Verdict> verdict;  // of the machine, when it could be measured
};

AttemptOutcome failed_outcome(AttemptState state, const std::string& reason) {
  AttemptOutcome o;
  o.state = state;
  o.error_reason = reason;
  return o;
}

// Records the outcome, with the provenance read from `result_json` (a chain's stage's). Should the
// store refuse it (a value it cannot hold), the attempt is still finished: as failed, saying why,
// without what could not be stored.
void record_outcome(Store& store, std::int64_t attempt, AttemptOutcome& outcome, const ProvenanceContext& context,
                    const LaunchCommand& command, const std::string& command_text, const ProgramIdentity& program,
                    const std::optional<std::string>& result_json) {
  std::optional<Provenance> provenance;
  try {
    provenance = assemble_provenance(context, result_json, command, program);
  } catch (const std::exception&) {  // a result whose environment is malformed: what mtrun knows itself
    provenance = assemble_provenance(context, std::nullopt, command, program);
  }
  provenance->command = command_text;
  try {
    store.finish_attempt(attempt, outcome, provenance);
  } catch (const std::exception& e) {
    AttemptOutcome bare =
        failed_outcome(AttemptState::Failed, fmt::format("mtrun could not record the result: {}", e.what()));
    bare.exit_code = outcome.exit_code;
    bare.signal = outcome.signal;
    bare.duration_s = outcome.duration_s;
    store.finish_attempt(attempt, bare, std::nullopt);
    outcome = std::move(bare);
  }
}

Finished run_one(Store& store, const CampaignRun& run, std::int64_t row, const Trial& trial) {
  const int number = store.next_attempt_number(row);
  const auto run_dir = run.runs_dir / trial.identity / fmt::format("attempt-{}", number);
  const auto result_file = run_dir / "result.json";
  const auto log_file = run_dir / "log.txt";
  const std::string job_name = fmt::format("mtrun-{}-{}", trial.identity.substr(0, 12), number);
  const ChainDirs chain_dirs{run_dir};
  TrialCommand command;  // a chain's: its first stage's, which names the program it runs
  std::string command_text, unbuildable;
  try {
    if (trial.is_chain()) {
      command = prepare_stage(trial, 0, chain_dirs, run.context, job_name).command;
      command_text = chain_command_text(trial, chain_dirs, run.context);
    } else {
      command = build_trial_command(trial, run.context, result_file, job_name);
      command_text = command_line(command);
    }
  } catch (const std::exception& e) {  // a stored trial whose template no longer expands
    unbuildable = e.what();
  }
  // The program is identified before the job writes anything; provenance as far as mtrun knows
  // it before the launch is recorded with the attempt, so a killed attempt keeps it.
  const ProgramIdentity program = trial_program(run.provenance, command.program, run_dir);
  Provenance before = assemble_provenance(run.provenance, std::nullopt, command, program);
  before.command = command_text;
  std::int64_t attempt = store.begin_attempt(row, number, command_text, run_dir.string(), log_file.string(), before);
  AttemptOutcome outcome;
  std::optional<std::string> provenance_result;
  std::optional<MachineConditions> conditions;
  bool launched = false;
  try {
    if (!unbuildable.empty()) throw std::runtime_error("the trial's command cannot be built: " + unbuildable);
    std::filesystem::create_directories(run_dir);
    launched = true;
    if (trial.is_chain()) {
      ConditionsWatch watch(run.conditions.sample_interval_s);
      ChainOutcome chain = run_chain(store, run, attempt, trial, chain_dirs, log_file, job_name);
      conditions = watch.finish();
      outcome = std::move(chain.outcome);
      provenance_result = std::move(chain.provenance_result);
    } else {
      std::filesystem::remove(result_file);  // never ingest a stale result
      ConditionsWatch watch(run.conditions.sample_interval_s);
      ProcessOutcome process = run_job(run, command, run_dir, log_file, trial.timeout_s);
      conditions = watch.finish();
      outcome = classify_attempt(process, result_file, log_file, trial);
      outcome.files = files_to_keep(trial, outcome, run_dir);
      provenance_result = outcome.result_json;
    }
  } catch (const SqliteError&) {
    throw;                             // the database can no longer be written: the campaign stops
  } catch (const std::exception& e) {  // whatever the job left behind, the attempt ends with a reason
    outcome = launched
                  ? failed_outcome(AttemptState::Failed, fmt::format("mtrun could not read the result: {}", e.what()))
                  : failed_outcome(AttemptState::LaunchFailed, e.what());
  }
  record_outcome(store, attempt, outcome, run.provenance, command, command_text, program, provenance_result);
  std::optional<Verdict> verdict;
  if (conditions) verdict = assess_attempt(store.db(), run.campaign_id, attempt, *conditions, outcome, run.conditions);
  return {std::move(outcome), log_file, std::move(verdict)};
}

// What each trial is, for the ETA (trial_times.h): built from every trial up front only for a plan
// small enough to hold them; a larger one is estimated from the mean trial time alone.
constexpr std::size_t kMostTrialsTimedByKind = 20000;

std::vector<TrialTimes::Kind> trial_kinds(const PendingTrials& trials) {
  std::vector<TrialTimes::Kind> kinds;
  if (trials.rows.size() > kMostTrialsTimedByKind) return kinds;
  for (std::size_t i = 0; i < trials.rows.size(); ++i) {
    const Trial t = trials.trial(i);
    kinds.push_back({t.group_key, fmt::format("{}/{}", t.study, t.ranks)});
  }
  return kinds;
}

}  // namespace

ProcessOutcome run_job(const CampaignRun& run, const LaunchCommand& command, const std::filesystem::path& dir,
                       const std::filesystem::path& log_file, double timeout_s) {
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.environment = command.environment;
  spec.log_file = log_file;
  spec.working_dir = dir;
  spec.timeout_s = timeout_s;
  spec.running_pid = run.running_launcher;
  spec.guard = run.guard;
  spec.cleanup_argv = command.cleanup_argv;
  return run_process(spec, run.stop);
}

CampaignResult run_trials(Store& store, const CampaignRun& run, const PendingTrials& trials, std::ostream& out) {
  CampaignResult result;
  Progress progress(out, int(trials.rows.size()), run.live_progress,
                    run.live_progress ? trial_kinds(trials) : std::vector<TrialTimes::Kind>{});
  for (std::size_t i = 0; i < trials.rows.size(); ++i) {
    if (run.stop && run.stop->load()) {
      result.stopped = true;
      break;
    }
    if (run.lease_lost && run.lease_lost->load()) {
      result.lease_lost = true;
      break;
    }
    const Trial t = trials.trial(i);
    std::string waited;
    if (run.wait_quiet_s > 0) {
      const QuietCheck quiet = check_quiet(run.conditions, run.wait_quiet_s, run.stop);
      if (quiet.busy()) {
        waited =
            fmt::format(" (still busy after {:.0f} s: {})", quiet.waited_s + kQuietProbeSeconds, busy_reasons(quiet));
      } else if (quiet.waited_s > 0) {
        waited = fmt::format(" (waited {:.0f} s for a quiet machine)", quiet.waited_s + kQuietProbeSeconds);
      }
    }
    progress.trial_started(fmt::format("{} {} rep {}{}", t.study, t.axes_label(), t.repeat_index, waited));
    auto [outcome, log_file, verdict] = run_one(store, run, trials.rows[i], t);
    std::string detail = outcome_detail(outcome);
    if (verdict && verdict->disturbed) {
      detail += fmt::format("{}disturbed: {}", detail.empty() ? "" : "; ", fmt::join(verdict->reasons, "; "));
      if (outcome.state == AttemptState::Succeeded) ++result.disturbed;
    }
    progress.trial_finished(to_string(outcome.state), outcome.duration_s, detail, log_file.string());
    ++result.ran;
    if (outcome.state != AttemptState::Succeeded) ++result.failed;
  }
  if (run.stop && run.stop->load()) result.stopped = true;
  result.not_run = int(trials.rows.size()) - result.ran;
  progress.finish();
  return result;
}

void recover_stale_attempts(Store& store, const CampaignLease& lease, std::ostream& out) {
  if (int stale = lease.interrupted() + store.interrupt_stale_attempts()) {
    fmt::print(out, "{} attempt(s) left running by a stopped mtrun are now marked interrupted\n", stale);
  }
}

int finish_campaign(Store& store, const std::string& campaign_id, const CampaignResult& result,
                    const std::filesystem::path& db, std::ostream& out) {
  fmt::print(out, "\n{}", render_summary(campaign_trials(store.db(), campaign_id)));
  fmt::print(out, "\nresults: {}  (mtrun status; mtrun query \"select * from training\")\n", db.string());
  if (result.disturbed > 0) {
    fmt::print(out,
               "{} attempt(s) ran on a disturbed machine; reports leave them out of means (mtrun query \"select * "
               "from conditions where verdict = 'disturbed'\")\n",
               result.disturbed);
  }
  if (result.lease_lost) {
    fmt::print(out,
               "stopped: another mtrun took campaign {} over while this one was stalled; {} trial(s) not run here\n",
               campaign_id, result.not_run);
    return kExitFailure;
  }
  if (result.stopped) {
    fmt::print(out, "interrupted: {} trial(s) not run; `mtrun rerun --failed` completes the campaign\n",
               result.not_run);
    return kExitInterrupted;
  }
  if (result.failed > 0) {
    fmt::print(out, "{} of {} trial(s) run did not succeed; `mtrun rerun --failed` runs them again\n", result.failed,
               result.ran);
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace mt
