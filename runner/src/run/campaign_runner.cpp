#include "run/campaign_runner.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "launch/process.h"
#include "run/progress.h"
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
    return "";
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
};

Finished run_one(Store& store, const CampaignRun& run, const Store::StoredTrial& stored) {
  const Trial& trial = stored.trial;
  const int number = store.next_attempt_number(stored.row);
  const auto run_dir = run.runs_dir / trial.identity / fmt::format("attempt-{}", number);
  std::filesystem::create_directories(run_dir);
  const auto result_file = run_dir / "result.json";
  const auto log_file = run_dir / "log.txt";
  std::filesystem::remove(result_file);  // never ingest a stale result
  const std::string job_name = fmt::format("mtrun-{}-{}", trial.identity.substr(0, 12), number);
  TrialCommand command = build_trial_command(trial, run.context, result_file, job_name);

  const ProgramIdentity program = trial_program(run.provenance, command.program, run_dir);  // before the job writes
  std::int64_t attempt =
      store.begin_attempt(stored.row, number, command_line(command), run_dir.string(), log_file.string());
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.environment = command.environment;
  spec.log_file = log_file;
  spec.working_dir = run_dir;
  spec.timeout_s = trial.timeout_s;
  spec.running_pid = run.running_launcher;
  spec.guard = run.guard;
  spec.cleanup_argv = command.cleanup_argv;
  ProcessOutcome process = run_process(spec, run.stop);
  AttemptOutcome outcome = classify_attempt(process, result_file, log_file, trial);
  store.finish_attempt(attempt, outcome, assemble_provenance(run.provenance, outcome.result_json, command, program));
  return {std::move(outcome), log_file};
}

}  // namespace

CampaignResult run_trials(Store& store, const CampaignRun& run, const std::vector<Store::StoredTrial>& trials,
                          std::ostream& out) {
  CampaignResult result;
  Progress progress(out, int(trials.size()), run.live_progress);
  for (const auto& stored : trials) {
    if (run.stop && run.stop->load()) {
      result.stopped = true;
      break;
    }
    const Trial& t = stored.trial;
    progress.trial_started(fmt::format("{} {} rep {}", t.study, t.axes_label(), t.repeat_index));
    auto [outcome, log_file] = run_one(store, run, stored);
    progress.trial_finished(to_string(outcome.state), outcome.duration_s, outcome_detail(outcome),
                            log_file.string());
    ++result.ran;
    if (outcome.state != AttemptState::Succeeded) ++result.failed;
  }
  if (run.stop && run.stop->load()) result.stopped = true;
  result.not_run = int(trials.size()) - result.ran;
  progress.finish();
  return result;
}

void recover_stale_attempts(Store& store, std::ostream& out) {
  if (int stale = store.interrupt_stale_attempts()) {
    fmt::print(out, "{} attempt(s) left running by a stopped mtrun are now marked interrupted\n", stale);
  }
}

int finish_campaign(Store& store, const std::string& campaign_id, const CampaignResult& result,
                    const std::filesystem::path& db, std::ostream& out) {
  fmt::print(out, "\n{}", render_summary(campaign_trials(store, campaign_id)));
  fmt::print(out, "\nresults: {}  (mtrun status; mtrun query \"select * from training\")\n", db.string());
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
