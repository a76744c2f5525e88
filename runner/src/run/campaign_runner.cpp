#include "run/campaign_runner.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <ostream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "launch/machine_sampler.h"
#include "launch/process.h"
#include "launch/stage_command.h"
#include "run/chain_runner.h"
#include "run/conditions_watch.h"
#include "run/job_look.h"
#include "run/quiet_machine.h"
#include "run/restarting_job.h"
#include "run/progress.h"
#include "store/attempt_files.h"
#include "store/conditions_rows.h"
#include "store/result_ingest.h"
#include "runner_error.h"
#include "table_cell.h"
#include "run/summary.h"

namespace mt {
namespace {

// How many of a successful command trial's metrics its progress line shows.
constexpr std::size_t kMetricsShown = 3;

// A metric's name as the trial wrote it, escaped and clipped (at a character's start) to fit a line.
std::string short_name(const std::string& name) {
  constexpr std::size_t kMostBytes = 40;
  std::string out = escape_control_characters(name);
  if (out.size() <= kMostBytes) return out;
  std::size_t cut = kMostBytes;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  return out.substr(0, cut) + "…";
}

std::string outcome_detail(const AttemptOutcome& o) {
  if (o.state == AttemptState::Succeeded) {
    for (const auto& m : o.metrics) {
      if (m.name == "tokens_per_sec") return fmt::format("{:.0f} tokens/s", m.value);
    }
    if (!o.rows.empty()) return fmt::format("{} rows", o.rows.size());
    // A command workload's own metrics (its `metrics:`), the first few of its top-level ones.
    std::vector<std::string> shown;
    for (const auto& m : o.metrics) {
      if (m.name.find('.') != std::string::npos) continue;
      shown.push_back(fmt::format("{} {:g}", short_name(m.name), m.value));
      if (shown.size() == kMetricsShown) break;
    }
    return fmt::format("{}", fmt::join(shown, ", "));
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
  std::optional<Verdict> verdict;           // of the machine, when it could be measured
  std::vector<std::string> job_look_words;  // what the job's own look said (run/job_look.h)
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

// An attempt recorded as begun, with everything its job needs: made and finished on the thread that
// owns the store; only execute() may run on another.
struct Prepared {
  std::int64_t attempt = 0;
  std::filesystem::path run_dir, result_file, log_file;
  std::string job_name;
  TrialCommand command;  // a chain's: its first stage's, which names the program it runs
  std::string command_text, unbuildable;
  ProgramIdentity program;
  // Where the job looks for a quiet machine itself (run/job_look.h): the file it writes, and the
  // longest the look may take; empty where it does not.
  BeforeRanks job_look;
};

struct Executed {
  AttemptOutcome outcome;
  std::optional<std::string> provenance_result;
  std::optional<MachineConditions> conditions;
};

Prepared prepare(Store& store, const CampaignRun& run, std::int64_t row, const Trial& trial,
                 const BeforeLaunch& before) {
  Prepared p;
  const int number = store.next_attempt_number(row);
  p.run_dir = run.runs_dir / trial.identity / fmt::format("attempt-{}", number);
  p.result_file = p.run_dir / "result.json";
  p.log_file = p.run_dir / "log.txt";
  p.job_name = fmt::format("mtrun-{}-{}", trial.identity.substr(0, 12), number);
  const ChainDirs chain_dirs{p.run_dir};
  try {
    if (trial.is_chain()) {
      p.command = prepare_stage(trial, 0, chain_dirs, run.context, p.job_name).command;
      p.command_text = chain_command_text(trial, chain_dirs, run.context);
    } else {
      std::vector<std::string> first;
      if (job_looks_first(run.look_place, run.wait_quiet_s, run.parallel)) {
        p.job_look = {p.run_dir / kJobLookFile, run.wait_quiet_s + kNodeLookTimeoutS};
        first = job_look_command(run.look_place.mtrun, run.wait_quiet_s, run.conditions, p.job_look.done_file);
      }
      p.command = build_trial_command(trial, run.context, p.result_file, p.job_name, first);
      p.command_text = command_line(p.command);
    }
  } catch (const std::exception& e) {  // a stored trial whose template no longer expands
    p.unbuildable = e.what();
  }
  // The program is identified before the job writes anything; provenance as far as mtrun knows
  // it before the launch is recorded with the attempt, so a killed attempt keeps it.
  p.program = trial_program(run.provenance, p.command.program, p.run_dir);
  Provenance known = assemble_provenance(run.provenance, std::nullopt, p.command, p.program);
  known.command = p.command_text;
  p.attempt = store.begin_attempt(row, number, p.command_text, p.run_dir.string(), p.log_file.string(), known, before);
  return p;
}

// Runs the attempt's job and reads what it left. A chain's stages are recorded as they run, so a
// chain needs the store: it runs on the store's thread (execute is called there for it).
Executed execute(Store& store, const CampaignRun& run, const Prepared& p, const Trial& trial) {
  Executed e;
  bool launched = false;
  try {
    if (!p.unbuildable.empty()) throw std::runtime_error("the trial's command cannot be built: " + p.unbuildable);
    std::filesystem::create_directories(p.run_dir);
    launched = true;
    // The job's processes a scheduler starts outside mtrun's tree carry its name (MTRUN_JOB).
    const std::string marked_job = p.command.marks_job_processes ? p.job_name : "";
    // The cores are timed only where no other trial's job runs beside this one, which it would slow.
    const bool time_cores = run.parallel <= 1;
    if (trial.is_chain()) {
      ConditionsWatch watch(run.conditions.sample_interval_s, marked_job, time_cores);
      ChainOutcome chain = run_chain(store, run, p.attempt, trial, ChainDirs{p.run_dir}, p.log_file, p.job_name);
      e.conditions = watch.finish();
      e.outcome = std::move(chain.outcome);
      e.provenance_result = std::move(chain.provenance_result);
    } else {
      ConditionsWatch watch(run.conditions.sample_interval_s, marked_job, time_cores);
      e.outcome = run_restarting(run, trial, p.command, p.run_dir, p.job_name, [&](const LaunchCommand& command) {
        std::filesystem::remove(p.result_file);  // never ingest a stale result
        // Only the first launch looks first; a restart's relaunch resumes at once.
        const BeforeRanks before = command.argv == p.command.argv ? p.job_look : BeforeRanks{};
        ProcessOutcome process = run_job(run, command, p.run_dir, p.log_file, trial.timeout_s, before);
        return classify_attempt(process, p.result_file, p.log_file, trial);
      });
      e.conditions = watch.finish();
      e.outcome.files = files_to_keep(trial, e.outcome, p.run_dir);
      e.provenance_result = e.outcome.result_json;
    }
  } catch (const SqliteError&) {
    throw;                              // the database can no longer be written: the campaign stops
  } catch (const std::exception& ex) {  // whatever the job left behind, the attempt ends with a reason
    e.outcome =
        launched ? failed_outcome(AttemptState::Failed, fmt::format("mtrun could not read the result: {}", ex.what()))
                 : failed_outcome(AttemptState::LaunchFailed, ex.what());
  }
  return e;
}

Finished complete(Store& store, const CampaignRun& run, const Prepared& p, Executed e) {
  std::vector<std::string> job_look_words;
  if (!p.job_look.done_file.empty()) {
    if (auto read = read_job_look(p.job_look.done_file)) {
      store.record_job_look(p.attempt, read->look);
      job_look_words = std::move(read->words);
    }
  }
  record_outcome(store, p.attempt, e.outcome, run.provenance, p.command, p.command_text, p.program,
                 e.provenance_result);
  std::optional<Verdict> verdict;
  if (e.conditions) {
    verdict = assess_attempt(store.db(), run.campaign_id, p.attempt, *e.conditions, e.outcome, run.conditions);
  }
  return {std::move(e.outcome), p.log_file, std::move(verdict), std::move(job_look_words)};
}

Finished run_one(Store& store, const CampaignRun& run, std::int64_t row, const Trial& trial,
                 const BeforeLaunch& before) {
  Prepared p = prepare(store, run, row, trial, before);
  return complete(store, run, p, execute(store, run, p, trial));
}

// The campaign's usual core round trip on this machine, which a look before a trial waits for the
// cores to come back to; none where looks are not taken here or trials run in parallel.
std::optional<double> usual_core_round_trip(Store& store, const CampaignRun& run) {
  if (run.wait_quiet_s <= 0 || run.parallel > 1 || run.look_place.where != LookPlace::Where::Here) return std::nullopt;
  const MachineSnapshot now = read_snapshot();
  if (!now.stat) return std::nullopt;
  return campaign_usual_core_round_trip(store.db(), run.campaign_id, now.stat->cpus);
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
                       const std::filesystem::path& log_file, double timeout_s, const BeforeRanks& before) {
  ProcessSpec spec;
  spec.ranks_start_file = before.done_file;
  spec.before_ranks_s = before.most_s;
  spec.argv = command.argv;
  spec.environment = command.environment;
  spec.log_file = log_file;
  spec.working_dir = dir;
  spec.timeout_s = timeout_s;
  spec.running_pid = run.running_launcher;
  spec.guard = run.guard;
  spec.cleanup = command.cleanup;
  spec.job_state = command.job_state;
  if (!command.job_output_file.empty()) spec.job_output_file = command.job_output_file;
  spec.queue_timeout_s = run.context.launcher.queue_timeout_s;
  spec.queue_state_changed = run.queue_state_changed;
  spec.beside_others = run.parallel > 1;
  return run_process(spec, run.stop);
}

namespace {

// Counts a finished attempt and returns what progress shows after its state.
std::string tally(CampaignResult& result, const Finished& done) {
  std::string detail = outcome_detail(done.outcome);
  if (!done.job_look_words.empty()) {  // escaped: the file is in the job's reach
    detail += fmt::format("{}its job's look: {}", detail.empty() ? "" : "; ",
                          escape_control_characters(fmt::format("{}", fmt::join(done.job_look_words, "; "))));
  }
  if (done.verdict && done.verdict->disturbed) {
    detail += fmt::format("{}disturbed: {}", detail.empty() ? "" : "; ", fmt::join(done.verdict->reasons, "; "));
    if (done.outcome.state == AttemptState::Succeeded) ++result.disturbed;
  }
  ++result.ran;
  if (done.outcome.state != AttemptState::Succeeded) ++result.failed;
  return detail;
}

struct InFlight {
  std::string label;
  Prepared prepared;
  std::future<Executed> executed;
};

// Up to run.parallel trials at once, each in a slot of its own (its CPU or host set, its
// launcher's PID for Ctrl-C); the store is touched only here, on this thread. A chain records its
// stages as they run, so it runs alone, once the trials before it have finished.
CampaignResult run_in_parallel(Store& store, const CampaignRun& run, const PendingTrials& trials, std::ostream& out) {
  CampaignResult result;
  Progress progress(out, int(trials.rows.size()), false);
  const std::size_t slots = std::size_t(run.parallel);
  std::vector<CampaignRun> slot_runs(slots, run);
  for (std::size_t k = 0; k < slots; ++k) {
    slot_runs[k].context.slot = int(k);
    slot_runs[k].running_launcher = run.running_launchers ? &run.running_launchers[k] : run.running_launcher;
  }
  std::vector<std::optional<InFlight>> flight(slots);
  auto in_flight = [&] { return std::count_if(flight.begin(), flight.end(), [](auto& f) { return f.has_value(); }); };
  auto land = [&](std::size_t k) {
    InFlight& f = *flight[k];
    Finished done = complete(store, slot_runs[k], f.prepared, f.executed.get());
    const std::string detail = tally(result, done);
    progress.parallel_finished(f.label, to_string(done.outcome.state), done.outcome.duration_s, detail,
                               done.log_file.string());
    flight[k].reset();
  };
  std::size_t next = 0;
  bool launching = true;
  while (true) {
    while (launching && next < trials.rows.size()) {
      if (run.stop && run.stop->load()) {
        result.stopped = true;
        launching = false;
        break;
      }
      if (run.lease_lost && run.lease_lost->load()) {
        result.lease_lost = true;
        launching = false;
        break;
      }
      auto open_slot = std::find_if(flight.begin(), flight.end(), [](auto& f) { return !f.has_value(); });
      if (open_slot == flight.end()) break;
      const std::size_t k = std::size_t(open_slot - flight.begin());
      Trial t = trials.trial(next);
      if (t.is_chain() && in_flight() > 0) break;  // it waits until it can run alone
      const std::string label = trial_label(t);
      // Set while the slot is free: its trial's thread reads it from here on.
      slot_runs[k].queue_state_changed = [&progress, label](const std::string& state) {
        progress.parallel_queued(label, state);
      };
      if (t.is_chain()) {
        progress.parallel_started(label);
        Finished done = run_one(store, slot_runs[k], trials.rows[next], t, {});
        const std::string detail = tally(result, done);
        progress.parallel_finished(label, to_string(done.outcome.state), done.outcome.duration_s, detail,
                                   done.log_file.string());
        ++next;
        continue;
      }
      Prepared p = prepare(store, slot_runs[k], trials.rows[next], t, {});  // nothing waited for in parallel
      progress.parallel_started(label);
      const CampaignRun& slot_run = slot_runs[k];
      std::future<Executed> executed = std::async(
          std::launch::async, [&store, &slot_run, p, t = std::move(t)] { return execute(store, slot_run, p, t); });
      flight[k].emplace(InFlight{label, std::move(p), std::move(executed)});
      ++next;
    }
    if (in_flight() == 0 && (!launching || next >= trials.rows.size())) break;
    for (std::size_t k = 0; k < slots; ++k) {
      if (flight[k] && flight[k]->executed.wait_for(std::chrono::milliseconds(20)) == std::future_status::ready) {
        land(k);
      }
    }
  }
  if (run.stop && run.stop->load()) result.stopped = true;
  result.not_run = int(trials.rows.size()) - result.ran;
  progress.finish();
  return result;
}

}  // namespace

CampaignResult run_trials(Store& store, const CampaignRun& campaign, const PendingTrials& trials, std::ostream& out) {
  if (campaign.parallel > 1) return run_in_parallel(store, campaign, trials, out);
  CampaignResult result;
  Progress progress(out, int(trials.rows.size()), campaign.live_progress,
                    campaign.live_progress ? trial_kinds(trials) : std::vector<TrialTimes::Kind>{});
  CampaignRun run = campaign;
  run.queue_state_changed = [&progress](const std::string& state) { progress.trial_queued(state); };
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
    const TrialWait wait = wait_before_trial(run.settle_s, run.wait_quiet_s, run.conditions, run.stop, run.look_place,
                                             usual_core_round_trip(store, run));
    if (run.stop && run.stop->load()) {
      result.stopped = true;
      break;
    }
    const std::string waited = wait.words.empty() ? "" : fmt::format(" ({})", fmt::join(wait.words, "; "));
    progress.trial_started(trial_label(t) + waited);
    Finished done = run_one(store, run, trials.rows[i], t, wait.before);
    const std::string detail = tally(result, done);
    progress.trial_finished(to_string(done.outcome.state), done.outcome.duration_s, detail, done.log_file.string());
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

std::string trial_label(const Trial& t) {
  const std::string axes = t.axes_label();
  return fmt::format("{} {}rep {}", t.study, axes.empty() ? "" : escape_control_characters(axes) + " ", t.repeat_index);
}

int finish_campaign(Store& store, const std::string& campaign_id, const CampaignResult& result,
                    const std::string& answers, const std::string& how_to_finish, const std::filesystem::path& db,
                    std::ostream& out) {
  const std::vector<TrialRow> rows = campaign_trials(store.db(), campaign_id);
  const bool keep_disturbed = keeps_disturbed(store.db(), campaign_id);
  fmt::print(out, "\n{}", render_summary(rows, keep_disturbed));
  if (!answers.empty()) fmt::print(out, "\n{}", answers);
  fmt::print(out, "\nresults: {}  ({})\n", db.string(), where_to_look(rows));
  if (result.disturbed > 0) {
    fmt::print(out,
               "{} attempt(s) ran on a disturbed machine (mtrun query \"select * from conditions where verdict = "
               "'disturbed'\"); {}\n",
               result.disturbed,
               keep_disturbed ? "the experiment keeps them in means (conditions: keep_disturbed)"
                              : "the summary, the answers and reports leave them out of means, and " +
                                    rerun_disturbed_advice(disturbed_attempts_waited(store.db(), rows)));
  }
  if (result.lease_lost) {
    fmt::print(out,
               "stopped: another mtrun took campaign {} over while this one was stalled; {} trial(s) not run here\n",
               campaign_id, result.not_run);
    return kExitFailure;
  }
  if (result.stopped) {
    fmt::print(out, "interrupted: {} trial(s) not run; {}\n", result.not_run, how_to_finish);
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
