#pragma once
// Progress of a campaign. On a terminal: one live line with done/total, failures, elapsed, ETA and
// the current trial with how long it has run of how long it is expected to; the line is redrawn
// every second while a trial runs, so a long trial shows it is alive. Elsewhere (logs, CI): one
// plain line per finished trial. Either way a failure is printed the moment it happens, with the
// path of its log. The ETA comes from the trials' measured times (trial_times.h).
#include <chrono>
#include <condition_variable>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/trial_times.h"

namespace mt {

class Progress {
 public:
  // `kinds`: one per trial in run order (see TrialTimes), or empty.
  Progress(std::ostream& out, int total, bool live, const std::vector<TrialTimes::Kind>& kinds = {});
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void trial_started(const std::string& label);
  // The running trial's job waits in the scheduler's queue ("PENDING Resources"), or no longer
  // does (""): the live line says so instead of how long the trial has run.
  void trial_queued(const std::string& state);
  // `detail` is shown after the state; `log_path` is printed for anything that did not succeed.
  void trial_finished(const std::string& state, double seconds, const std::string& detail, const std::string& log_path);
  void finish();

  // With trials in flight at once: one plain line when each starts and one when it ends, both
  // naming it (the live line and the ETA assume one trial at a time).
  void parallel_started(const std::string& label);
  // One line each time the scheduler's word on a queued trial in flight changes (e.g. "PENDING
  // Resources"); none once its job has started (`state` ""): its end line says the rest.
  void parallel_queued(const std::string& label, const std::string& state);
  void parallel_finished(const std::string& label, const std::string& state, double seconds, const std::string& detail,
                         const std::string& log_path);

  int done() const { return done_; }
  int failures() const { return failures_; }

  // The live line as it reads now (what the terminal shows, without the escape codes). Not while
  // a live Progress may be redrawing it: that one is read from the output.
  std::string live_line() const;

 private:
  using Clock = std::chrono::steady_clock;
  void draw_live_line();  // with mutex_ held
  void tick();            // the redrawing thread
  double elapsed_s() const;

  std::ostream& out_;
  int total_;
  bool live_;
  int done_ = 0;
  int started_ = 0;  // trials started, when several run at once
  int failures_ = 0;
  std::string current_;
  bool running_ = false;  // a trial has started and not finished
  std::string queued_;    // the scheduler's word while the running trial's job waits, else ""
  Clock::time_point queued_since_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point trial_start_ = start_;
  TrialTimes times_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread ticker_;
};

// "1h02m", "3m05s", "12s".
std::string format_duration(double seconds);

}  // namespace mt
