#pragma once
// Runs a short helper program for what it prints (an engine's `--describe`), bounded in time and in
// output, so a program that hangs or floods cannot hang or exhaust mtrun. It runs in a process
// group of its own, which is killed whole when it overruns.
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace mt {

// The program ran past its time or output limit and was killed.
struct CaptureOverrun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The caller gave up on the program (its `cancel` flag was set) and it was killed.
struct CaptureCancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CaptureLimits {
  double timeout_s = 30;
  std::size_t max_bytes = 64u << 20;
  // Where set, the flag another thread raises to give up (the user's Ctrl-C): looked at every
  // 50 ms, so a slow program does not hold up the caller for its whole timeout.
  const std::atomic<bool>* cancel = nullptr;
};

// The lines of a program's output that hold anything, each trimmed of surrounding blanks.
std::vector<std::string> nonblank_lines(const std::string& output);

// `argv` as messages quote it: its words joined by spaces, in backquotes.
std::string command_text(const std::vector<std::string>& argv);

// Standard output of `argv` (argv[0] looked up on PATH unless it has a '/'), with standard input
// at /dev/null; its standard error is kept only to quote its last lines when it fails. Throws
// CaptureOverrun naming the program when it runs past the timeout or prints more than max_bytes
// (it is killed), CaptureCancelled when `cancel` was raised (likewise); std::runtime_error when it
// cannot start or does not exit 0, quoting what it said on standard error.
std::string capture_output(const std::vector<std::string>& argv, const CaptureLimits& limits);

}  // namespace mt
