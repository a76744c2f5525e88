#pragma once
// Progress of a campaign. On a terminal: one live line with done/total, failures, elapsed, ETA and
// the current trial. Elsewhere (logs, CI): one plain line per finished trial. Either way a failure
// is printed the moment it happens, with the path of its log.
#include <chrono>
#include <iosfwd>
#include <string>

namespace mt {

class Progress {
 public:
  Progress(std::ostream& out, int total, bool live);

  void trial_started(const std::string& label);
  // `detail` is shown after the state; `log_path` is printed for anything that did not succeed.
  void trial_finished(const std::string& state, double seconds, const std::string& detail, const std::string& log_path);
  void finish();

  int done() const { return done_; }
  int failures() const { return failures_; }

 private:
  void draw_live_line();
  double elapsed_s() const;

  std::ostream& out_;
  int total_;
  bool live_;
  int done_ = 0;
  int failures_ = 0;
  std::string current_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// "1h02m", "3m05s", "12s".
std::string format_duration(double seconds);

}  // namespace mt
