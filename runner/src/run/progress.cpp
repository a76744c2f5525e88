#include "run/progress.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "table_cell.h"

namespace mt {

std::string format_duration(double seconds) {
  long s = long(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(std::ostream& out, int total, bool live) : out_(out), total_(total), live_(live) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::draw_live_line() {
  std::string eta = done_ > 0 ? format_duration(elapsed_s() / done_ * (total_ - done_)) : "?";
  std::string line = fmt::format("[{}/{}] {} failed, {} elapsed, ETA {} | {}", done_, total_, failures_,
                                 format_duration(elapsed_s()), eta, current_);
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  fmt::print(out_, "\r\033[K{}", line);
  out_.flush();
}

void Progress::trial_started(const std::string& label) {
  current_ = escape_control_characters(label);  // a parameter's newline must not break the line
  if (live_) {
    draw_live_line();
  } else {
    fmt::print(out_, "[{}/{}] {} ... ", done_ + 1, total_, current_);
    out_.flush();
  }
}

void Progress::trial_finished(const std::string& state, double seconds, const std::string& detail,
                              const std::string& log_path) {
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

void Progress::finish() {
  if (live_) fmt::print(out_, "\r\033[K[{}/{}] done, {} failed, {}\n", done_, total_, failures_,
                        format_duration(elapsed_s()));
}

}  // namespace mt
