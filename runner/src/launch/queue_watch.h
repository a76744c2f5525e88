#pragma once
// A scheduler may hold a job in its queue before it starts (Slurm: PENDING while another job has
// the nodes), and a trial's timeout_s bounds how long the trial runs, not how long the cluster was
// busy. QueueWatch asks the scheduler for the job's state every few seconds until it has started,
// so the timeout can count from the last moment the job was seen waiting. Where the scheduler does
// not list the job (a step inside the caller's allocation) or cannot be asked, the clock stays at
// the launch, as for a launcher with no queue.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mt {

class QueueWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // `job_state` prints the job's state first on its line (e.g. `squeue … --format "%T %r"`);
  // empty: no queue to watch. Raising `interrupt` (the user's Ctrl-C) gives up a question in
  // flight: a slow scheduler does not hold up stopping the trial.
  QueueWatch(std::vector<std::string> job_state, Clock::time_point launched, double every_s = 2,
             const std::atomic<bool>* interrupt = nullptr);

  ~QueueWatch();
  QueueWatch(const QueueWatch&) = delete;
  QueueWatch& operator=(const QueueWatch&) = delete;

  // While the job is seen waiting, keep a queue note (queue_note.h) at `file`; it goes once the
  // job has started, cannot be asked about, or the watch ends.
  void note_in(std::filesystem::path file) { note_file_ = std::move(file); }
  // Told the scheduler's word each time it changes while the job waits, and "" once it no longer
  // does (e.g. for a progress line).
  void on_change(std::function<void(const std::string&)> tell) { tell_ = std::move(tell); }

  // Asks the scheduler if it is time to: at most once every `every_s`, and only until the job was
  // seen started (or is not listed, or the question failed).
  void look();

  bool waiting() const { return waiting_; }  // the latest answer said the job waits to start
  // From the launch to the latest answer that said the job waits: its time in the queue.
  double queued_s() const { return std::chrono::duration<double>(last_seen_waiting_ - launched_).count(); }
  Clock::time_point run_clock_start() const { return last_seen_waiting_; }
  const std::string& last_state() const { return last_state_; }  // e.g. "PENDING Resources"
  const std::string& problem() const { return problem_; }        // why the scheduler could not be asked

 private:
  std::vector<std::string> job_state_;
  Clock::time_point launched_, last_seen_waiting_, last_look_;
  double every_s_;
  const std::atomic<bool>* interrupt_;
  bool watching_, waiting_ = false;
  int unlisted_in_a_row_ = 0;
  std::string last_state_, problem_;
  std::filesystem::path note_file_;
  std::function<void(const std::string&)> tell_;
  std::string noted_;  // the waiting state last noted and told, "" while there is none

  void note_change();
};

// Whether a Slurm job state (squeue %T) is one of a job that has not started: it waits for
// resources, its nodes are being configured, or it was requeued.
bool slurm_state_waits(const std::string& state);

}  // namespace mt
