#pragma once
// Runs one launcher process (mpirun and its ranks) in a session of its own, with a timeout that
// takes every process of that session down, however the launcher arranges its children.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "experiment/trial.h"
#include "launch/job_cleanup.h"

namespace mt {

struct ProcessSpec {
  std::vector<std::string> argv;   // argv[0] is looked up on PATH unless it contains '/'
  std::vector<Param> environment;  // added to the runner's environment
  std::filesystem::path log_file;  // stdout and stderr together
  std::filesystem::path working_dir;
  double timeout_s = 600;
  double terminate_grace_s = 5;             // between SIGTERM and SIGKILL
  std::atomic<int>* running_pid = nullptr;  // if set, holds the launcher's PID while it runs
  // mtrun itself, to start the command under a job guard (job_guard.h); empty: no guard.
  std::filesystem::path guard;
  // Run (bounded, noted in the log) after the job had to be stopped: e.g. scancel for srun. The
  // guard runs it too when the runner dies.
  JobCleanup cleanup;
  CleanupLimits cleanup_limits;
  // Written by the job itself, not through the launcher's output (a batch job's): appended to
  // log_file when the job ends. Empty: none.
  std::filesystem::path job_output_file;
  // Prints the job's scheduler state (queue_watch.h), so the timeout counts from its start, not
  // from its launch; empty where the job starts when its launcher does.
  std::vector<std::string> job_state;
  double queue_timeout_s = 0;  // stop a job still queued after this long; 0: no limit
  // Written by the job once what it runs before its ranks is done (its look for quiet nodes,
  // run/job_look.h): the timeout counts from then, and until then the job may take up to
  // `before_ranks_s` beyond it. Empty: the timeout counts from the job's start.
  std::filesystem::path ranks_start_file;
  double before_ranks_s = 0;
  double queue_look_every_s = 2;
  // Told the scheduler's word each time it changes while the job waits, "" once it has started.
  std::function<void(const std::string&)> queue_state_changed;
  // Other jobs of this runner run at the same time: clean up only this job's session, never every
  // child of the runner, and reap only its processes.
  bool beside_others = false;
};

enum class ProcessEnd { Exited, Signaled, TimedOut, Interrupted, LaunchFailed };

struct ProcessOutcome {
  ProcessEnd end = ProcessEnd::LaunchFailed;
  int exit_code = -1;  // when Exited
  int signal = 0;      // when Signaled
  std::string launch_error;
  double duration_s = 0;
  // After a stop: what the cleanup says may be left of the job (job_cleanup.h), or "".
  std::string cleanup_problem;
  double queued_s = 0;            // seconds the scheduler held the job before it started
  bool stopped_in_queue = false;  // TimedOut because it was still queued after queue_timeout_s
  std::string queue_state;        // the scheduler's latest word on it, e.g. "PENDING Resources"
};

// Blocks until the process ends, times out, or `interrupt` becomes true (then the job is
// terminated and the outcome is Interrupted).
ProcessOutcome run_process(const ProcessSpec& spec, const std::atomic<bool>* interrupt = nullptr);

// Makes this process adopt orphaned descendants (ranks whose launcher died), so they can be
// found, killed and reaped instead of running on.
void become_child_subreaper();

// SIGKILLs every live descendant of this process — adopted orphans too, whatever session they
// made for themselves — and reaps them, repeating until none is left (bounded to a few seconds).
// For a child subreaper once the job it ran is over.
void kill_descendants();

// Sends `signal` to every process whose session id is `session` except `spare` (e.g. the caller);
// returns how many were signalled.
int signal_session(int session, int signal, int spare = 0);

}  // namespace mt
