#include "launch/queue_watch.h"

#include <exception>
#include <sstream>

#include "launch/bounded_capture.h"

namespace mt {
namespace {

// A step inside an allocation is no job of its own: after this many empty answers in a row the
// scheduler is taken not to list it.
constexpr int kUnlistedAnswers = 3;

}  // namespace

bool slurm_state_waits(const std::string& state) {
  return state == "PENDING" || state == "CONFIGURING" || state.rfind("REQUEUE", 0) == 0;
}

QueueWatch::QueueWatch(std::vector<std::string> job_state, Clock::time_point launched, double every_s)
    : job_state_(std::move(job_state)),
      launched_(launched),
      last_seen_waiting_(launched),
      last_look_(launched),
      every_s_(every_s),
      watching_(!job_state_.empty()) {}

void QueueWatch::look() {
  const auto now = Clock::now();
  if (!watching_ || std::chrono::duration<double>(now - last_look_).count() < every_s_) return;
  last_look_ = now;
  std::string answer;
  try {
    const auto lines = nonblank_lines(capture_output(job_state_, {10, 64u << 10}));
    if (!lines.empty()) answer = lines.front();
  } catch (const std::exception& e) {
    problem_ = e.what();
    watching_ = waiting_ = false;
    return;
  }
  if (answer.empty()) {
    waiting_ = false;
    watching_ = ++unlisted_in_a_row_ < kUnlistedAnswers;
    return;
  }
  unlisted_in_a_row_ = 0;
  std::string state;
  std::istringstream(answer) >> state;
  last_state_ = answer;
  waiting_ = slurm_state_waits(state);
  if (waiting_) last_seen_waiting_ = now;
  else watching_ = false;  // started (or over): nothing more to wait for
}

}  // namespace mt
