#include "launch/job_cleanup.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "launch/bounded_capture.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

// Word `index` (from 0) of `line`, words parted by spaces; empty where there are fewer.
std::string_view word_of(std::string_view line, int index) {
  std::size_t begin = line.find_first_not_of(' ');
  for (int k = 0; k < index && begin != std::string_view::npos; ++k) {
    begin = line.find_first_not_of(' ', line.find(' ', begin));
  }
  if (begin == std::string_view::npos) return {};
  return line.substr(begin, line.find(' ', begin) - begin);
}

// The lines of what the look printed that are pieces of the job.
std::vector<std::string> pieces_of_job(const std::string& printed, const std::string& name) {
  std::vector<std::string> pieces;
  for (auto& line : nonblank_lines(printed)) {
    if (name.empty() || word_of(line, 1) == name) pieces.push_back(std::move(line));
  }
  return pieces;
}

// What is left, lines joined with "; " (at most a few of them).
std::string left_in_words(const std::vector<std::string>& lines) {
  constexpr std::size_t kMostLines = 4;
  std::string words;
  for (std::size_t k = 0; k < std::min(lines.size(), kMostLines); ++k) words += (k == 0 ? "" : "; ") + lines[k];
  if (lines.size() > kMostLines) words += fmt::format("; and {} more", lines.size() - kMostLines);
  return words;
}

// The cancel command for what is listed: the cleanup's own, with the pieces' IDs where it takes them.
std::vector<std::string> cancel_command(const JobCleanup& cleanup, const std::vector<std::string>& left) {
  std::vector<std::string> argv = cleanup.cancel;
  if (cleanup.cancel_listed) {
    for (const auto& line : left) argv.emplace_back(word_of(line, 0));
  }
  return argv;
}

// Runs a cancel command; returns why it failed, or "".
std::string cancel(const std::vector<std::string>& argv, std::ostream& log, const CleanupLimits& limits) {
  log << fmt::format("mtrun: cancelling what may be left of the job: {}\n", command_text(argv)) << std::flush;
  try {
    capture_output(argv, {limits.command_timeout_s, 1u << 20});
    return "";
  } catch (const std::exception& e) {
    log << "mtrun: " << e.what() << "\n" << std::flush;
    return e.what();
  }
}

}  // namespace

std::string clean_up_job(const JobCleanup& cleanup, std::ostream& log, const CleanupLimits& limits) {
  if (cleanup.empty()) return "";
  using Seconds = std::chrono::duration<double>;
  const auto start = Clock::now();
  auto since = [](Clock::time_point t) { return Seconds(Clock::now() - t).count(); };
  // Cancelled by name at once; by ID once the scheduler has listed what there is.
  std::string cancel_problem;
  std::optional<Clock::time_point> last_cancel;
  std::vector<std::string> last_cancel_argv = cleanup.cancel;
  if (!cleanup.cancel_listed) {
    cancel_problem = cancel(cleanup.cancel, log, limits);
    last_cancel = Clock::now();
  }
  if (cleanup.list_left.empty()) {
    return cancel_problem.empty() ? "" : fmt::format("{}, so the job may still be running", cancel_problem);
  }
  const std::string listed = command_text(cleanup.list_left);
  const std::string of_job = cleanup.name.empty() ? "" : " named " + cleanup.name;
  std::vector<std::string> left;
  std::string look_problem;
  while (true) {
    try {
      left = pieces_of_job(capture_output(cleanup.list_left, {limits.command_timeout_s, 1u << 20}), cleanup.name);
      look_problem.clear();
    } catch (const std::exception& e) {
      look_problem = e.what();
    }
    if (look_problem.empty() && left.empty()) {
      log << fmt::format("mtrun: nothing of the job is left after {:.1f} s ({} lists nothing{})\n", since(start),
                         listed, of_job)
          << std::flush;
      return "";
    }
    if (since(start) >= limits.wait_s) break;
    if (!left.empty() && (!last_cancel || since(*last_cancel) >= limits.cancel_again_s)) {
      last_cancel_argv = cancel_command(cleanup, left);
      cancel_problem = cancel(last_cancel_argv, log, limits);
      last_cancel = Clock::now();
    }
    std::this_thread::sleep_for(Seconds(limits.poll_s));
  }
  const std::string after = last_cancel ? " after " + command_text(last_cancel_argv) : "";
  std::string problem;
  if (!look_problem.empty()) {
    problem = fmt::format("could not check that the job is gone{}: {}", after, look_problem);
  } else {
    problem = fmt::format("the job is still listed {:g} s{} ({}: {}); cancel it by hand", limits.wait_s, after, listed,
                          left_in_words(left));
  }
  if (!cancel_problem.empty()) problem += fmt::format(" (the last cancel: {})", cancel_problem);
  log << "mtrun: " << problem << "\n" << std::flush;
  return problem;
}

}  // namespace mt
