#include "launch/queue_watch.h"

#include <exception>
#include <sstream>

#include "launch/bounded_capture.h"
#include "launch/queue_note.h"

namespace mt {
namespace {

// A step inside an allocation is no job of its own: after this many empty answers in a row the
// scheduler is taken not to list it.
constexpr int kUnlistedAnswers = 3;

}  // namespace

bool slurm_state_waits(const std::string& state) {
  return state == "PENDING" || state == "CONFIGURING" || state.rfind("REQUEUE", 0) == 0;
}

QueueWatch::QueueWatch(std::vector<std::string> job_state, Clock::time_point launched, double every_s,
                       const std::atomic<bool>* interrupt)
    : job_state_(std::move(job_state)),
      launched_(launched),
      last_seen_waiting_(launched),
      last_look_(launched),
      every_s_(every_s),
      interrupt_(interrupt),
      watching_(!job_state_.empty()) {}

QueueWatch::~QueueWatch() {
  if (!noted_.empty() && !note_file_.empty()) remove_queue_note(note_file_);
}

void QueueWatch::note_change() {
  const std::string say = waiting_ ? last_state_ : "";
  if (say == noted_) return;
  noted_ = say;
  if (tell_) tell_(say);
  if (note_file_.empty()) return;
  if (say.empty()) {
    remove_queue_note(note_file_);
    return;
  }
  const auto since_launch = std::chrono::duration_cast<std::chrono::system_clock::duration>(Clock::now() - launched_);
  write_queue_note(note_file_,
                   {say, std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() - since_launch)});
}

void QueueWatch::look() {
  const auto now = Clock::now();
  if (!watching_ || std::chrono::duration<double>(now - last_look_).count() < every_s_) return;
  last_look_ = now;
  std::string answer;
  try {
    const auto lines = nonblank_lines(capture_output(job_state_, {10, 64u << 10, interrupt_}));
    if (!lines.empty()) answer = lines.front();
  } catch (const CaptureCancelled&) {
    watching_ = false;  // the trial is being stopped: no answer, and nothing wrong with the scheduler
    return;
  } catch (const std::exception& e) {
    problem_ = e.what();
    watching_ = waiting_ = false;
    note_change();
    return;
  }
  if (answer.empty()) {
    waiting_ = false;
    watching_ = ++unlisted_in_a_row_ < kUnlistedAnswers;
    note_change();
    return;
  }
  unlisted_in_a_row_ = 0;
  std::string state;
  std::istringstream(answer) >> state;
  last_state_ = answer;
  waiting_ = slurm_state_waits(state);
  if (waiting_) last_seen_waiting_ = now;
  else watching_ = false;  // started (or over): nothing more to wait for
  note_change();
}

}  // namespace mt
