#include "run/progress.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "table_cell.h"

namespace mt {
namespace {

constexpr auto kRedrawInterval = std::chrono::seconds(1);
constexpr std::size_t kLongestLine = 150;

}  // namespace

std::string format_duration(double seconds) {
  long s = long(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(std::ostream& out, int total, bool live, const std::vector<TrialTimes::Kind>& kinds)
    : out_(out), total_(total), live_(live), times_(std::size_t(std::max(total, 0)), kinds) {
  if (live_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

double Progress::elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::string Progress::live_line() const {
  const double trial_s = running_ ? std::chrono::duration<double>(Clock::now() - trial_start_).count() : 0.0;
  const auto left = times_.left(std::size_t(done_), trial_s);
  std::string line = fmt::format("[{}/{}] {} failed, {} elapsed, ETA {} | {}", done_, total_, failures_,
                                 format_duration(elapsed_s()), left ? format_duration(*left) : "?", current_);
  if (running_ && !queued_.empty()) {
    const double queued_s = std::chrono::duration<double>(Clock::now() - queued_since_).count();
    line += fmt::format(" (queued {}: {})", format_duration(queued_s), queued_);
  } else if (running_) {
    const auto expected = times_.expected(std::size_t(done_));
    line += expected ? fmt::format(" ({} of ~{})", format_duration(trial_s), format_duration(*expected))
                     : fmt::format(" ({})", format_duration(trial_s));
  }
  // The line must fit, or the terminal wraps it and \r no longer returns to its start.
  if (line.size() > kLongestLine) line = line.substr(0, kLongestLine - 3) + "...";
  return line;
}

void Progress::draw_live_line() {
  fmt::print(out_, "\r\033[K{}", live_line());
  out_.flush();
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedrawInterval);
    if (!stopping_ && running_) draw_live_line();
  }
}

void Progress::trial_started(const std::string& label) {
  std::lock_guard lock(mutex_);
  current_ = escape_control_characters(label);  // a parameter's newline must not break the line
  running_ = true;
  trial_start_ = Clock::now();
  if (live_) {
    draw_live_line();
  } else {
    fmt::print(out_, "[{}/{}] {} ... ", done_ + 1, total_, current_);
    out_.flush();
  }
}

void Progress::trial_queued(const std::string& state) {
  std::lock_guard lock(mutex_);
  if (queued_.empty()) queued_since_ = trial_start_;  // the job was handed to the scheduler at the start
  queued_ = escape_control_characters(state);
  if (live_ && running_) draw_live_line();
}

void Progress::trial_finished(const std::string& state, double seconds, const std::string& detail,
                              const std::string& log_path) {
  std::lock_guard lock(mutex_);
  // The ETA learns from the trial's wall time as the campaign saw it, launch and bookkeeping included.
  times_.record(std::size_t(done_), std::chrono::duration<double>(Clock::now() - trial_start_).count());
  running_ = false;
  queued_.clear();
  ++done_;
  bool succeeded = state == "succeeded";
  if (!succeeded) ++failures_;
  if (live_) {
    if (!succeeded) {
      fmt::print(out_, "\r\033[K{} {} after {:.1f} s: {}\n      log: {}\n", current_, state, seconds,
                 escape_control_characters(detail), log_path);
    }
    current_.clear();
    draw_live_line();
    return;
  }
  fmt::print(out_, "{} in {:.1f} s  {}\n", state, seconds, escape_control_characters(detail));
  if (!succeeded) fmt::print(out_, "      log: {}\n", log_path);
}

void Progress::parallel_started(const std::string& label) {
  std::lock_guard lock(mutex_);
  ++started_;
  fmt::print(out_, "[{}/{}] {} ... started\n", started_, total_, escape_control_characters(label));
  out_.flush();
}

void Progress::parallel_queued(const std::string& label, const std::string& state) {
  if (state.empty()) return;
  std::lock_guard lock(mutex_);
  fmt::print(out_, "[queued] {} ... {}\n", escape_control_characters(label), escape_control_characters(state));
  out_.flush();
}

void Progress::parallel_finished(const std::string& label, const std::string& state, double seconds,
                                 const std::string& detail, const std::string& log_path) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (state != "succeeded") ++failures_;
  fmt::print(out_, "[{} done] {} ... {} in {:.1f} s  {}\n", done_, escape_control_characters(label), state, seconds,
             escape_control_characters(detail));
  if (state != "succeeded") fmt::print(out_, "      log: {}\n", log_path);
  out_.flush();
}

void Progress::finish() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (live_)
    fmt::print(out_, "\r\033[K[{}/{}] done, {} failed, {}\n", done_, total_, failures_, format_duration(elapsed_s()));
}

}  // namespace mt
