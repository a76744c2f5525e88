#include "launch/job_cleanup.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "launch/bounded_capture.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

// What the look printed, lines joined with "; " (at most a few of them).
std::string left_in_words(const std::string& printed) {
  constexpr std::size_t kMostLines = 4;
  const std::vector<std::string> lines = nonblank_lines(printed);
  std::string words;
  for (std::size_t k = 0; k < std::min(lines.size(), kMostLines); ++k) words += (k == 0 ? "" : "; ") + lines[k];
  if (lines.size() > kMostLines) words += fmt::format("; and {} more", lines.size() - kMostLines);
  return words;
}

// Runs the cancel command; returns why it failed, or "".
std::string cancel(const JobCleanup& cleanup, std::ostream& log, const CleanupLimits& limits) {
  log << fmt::format("mtrun: cancelling what may be left of the job: {}\n", command_text(cleanup.cancel)) << std::flush;
  try {
    capture_output(cleanup.cancel, {limits.command_timeout_s, 1u << 20});
    return "";
  } catch (const std::exception& e) {
    log << "mtrun: " << e.what() << "\n" << std::flush;
    return e.what();
  }
}

}  // namespace

std::string clean_up_job(const JobCleanup& cleanup, std::ostream& log, const CleanupLimits& limits) {
  if (cleanup.empty()) return "";
  std::string cancel_problem = cancel(cleanup, log, limits);
  if (cleanup.list_left.empty()) {
    return cancel_problem.empty() ? "" : fmt::format("{}, so the job may still be running", cancel_problem);
  }
  const auto start = Clock::now();
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto last_cancel = start;
  std::string left, look_problem;
  while (true) {
    try {
      left = left_in_words(capture_output(cleanup.list_left, {limits.command_timeout_s, 1u << 20}));
      look_problem.clear();
    } catch (const std::exception& e) {
      look_problem = e.what();
    }
    if (look_problem.empty() && left.empty()) {
      log << fmt::format("mtrun: nothing of the job is left after {:.1f} s ({} lists nothing)\n", since(start),
                         command_text(cleanup.list_left))
          << std::flush;
      return "";
    }
    if (since(start) >= limits.wait_s) break;
    if (!left.empty() && since(last_cancel) >= limits.cancel_again_s) {
      cancel_problem = cancel(cleanup, log, limits);
      last_cancel = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(limits.poll_s));
  }
  std::string problem;
  if (!look_problem.empty()) {
    problem =
        fmt::format("could not check that the job is gone after {}: {}", command_text(cleanup.cancel), look_problem);
  } else {
    problem = fmt::format("the job is still listed {:g} s after {} ({}: {}); cancel it by hand", limits.wait_s,
                          command_text(cleanup.cancel), command_text(cleanup.list_left), left);
  }
  if (!cancel_problem.empty()) problem += fmt::format(" (the last cancel: {})", cancel_problem);
  log << "mtrun: " << problem << "\n" << std::flush;
  return problem;
}

}  // namespace mt
