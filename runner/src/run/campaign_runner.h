#pragma once
// Runs a list of a campaign's trials, one launcher job each: records each attempt before the
// launch and its outcome after, shows progress, stops cleanly when asked. Shared by `run` and
// `rerun`.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <vector>

#include "experiment/measurement_rules.h"
#include "launch/process.h"
#include "launch/provenance.h"
#include "run/quiet_machine.h"
#include "store/lease.h"
#include "store/store.h"
#include "launch/trial_command.h"

namespace mt {

struct CampaignRun {
  std::string campaign_id;
  LaunchContext context;
  std::filesystem::path runs_dir;  // attempts go to runs_dir/<trial identity>/attempt-N
  bool live_progress = false;
  std::atomic<bool>* stop = nullptr;              // set asynchronously to stop launching
  const std::atomic<bool>* lease_lost = nullptr;  // set when another runner took the campaign over
  std::atomic<int>* running_launcher = nullptr;
  std::filesystem::path guard;  // this mtrun's executable, to start jobs under a job guard
  ProvenanceContext provenance;
  ConditionsThresholds conditions;  // when an attempt's machine counts as disturbed
  double settle_s = 0;              // before each trial, first wait this long with nothing running
  double wait_quiet_s = 0;          // before each trial, wait up to this long for a quiet machine
  LookPlace look_place;             // where that look is taken
  // Trials in flight at once (experiment/parallel_rules.h decides where that is allowed); trial k
  // in flight holds its launcher's PID in running_launchers[k].
  int parallel = 1;
  std::atomic<int>* running_launchers = nullptr;
  // Told while a trial's job waits in the scheduler's queue (ProcessSpec::queue_state_changed).
  std::function<void(const std::string&)> queue_state_changed;
};

// The trials a run or rerun launches, in order: their rows in the store, and each trial built when
// its turn comes (from the plan, or from the database), so a campaign of a million trials is never
// held as a million Trials.
struct PendingTrials {
  std::vector<std::int64_t> rows;
  std::function<Trial(std::size_t)> trial;  // the trial of rows[i]
};

struct CampaignResult {
  int ran = 0;
  int failed = 0;
  int disturbed = 0;  // succeeded, on a disturbed machine
  int not_run = 0;    // left when stopped
  bool stopped = false;
  bool lease_lost = false;
};

// What a job runs before its ranks (its look for quiet nodes, run/job_look.h): the file it writes
// when done, from which the job's timeout counts, and the longest it may take.
struct BeforeRanks {
  std::filesystem::path done_file;
  double most_s = 0;
};

// Runs one job (a trial's, or a stage's of a chain) in `dir` with the campaign's job guard, stop flag
// and running-launcher slot: stopped at `timeout_s` or when the campaign is stopped.
ProcessOutcome run_job(const CampaignRun& run, const LaunchCommand& command, const std::filesystem::path& dir,
                       const std::filesystem::path& log_file, double timeout_s, const BeforeRanks& before = {});

// Every attempt started is finished with a state and a reason, whatever its job wrote; only a
// database that can no longer be written stops the campaign (the exception propagates).
CampaignResult run_trials(Store& store, const CampaignRun& run, const PendingTrials& trials, std::ostream& out);

// Marks attempts left `running` by a stopped mtrun as interrupted (so they run again), saying so:
// the campaign's own (found when its lease was taken) and those of other campaigns.
void recover_stale_attempts(Store& store, const CampaignLease& lease, std::ostream& out);

// A trial as its progress line and the plan name it: "ddp_scaling ranks=2 gradient_sync_mode=last rep
// 1" (the study's axes escaped; a study without axes: "s rep 0").
std::string trial_label(const Trial& trial);

// Exit code and closing lines shared by run and rerun: summary table, the answers to the
// campaign's questions (`answers`, printed as they are), where the results are, and what to do about
// failures, attempts on a disturbed machine (as each attempt's record says whether it waited for a
// quiet one) or an interruption: "interrupted: N trial(s) not run; " and `how_to_finish`, which
// the command that ran them knows ("`mtrun rerun --failed` completes the campaign").
int finish_campaign(Store& store, const std::string& campaign_id, const CampaignResult& result,
                    const std::string& answers, const std::string& how_to_finish, const std::filesystem::path& db,
                    std::ostream& out);

}  // namespace mt
