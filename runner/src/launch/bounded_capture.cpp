#include "launch/bounded_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "table_cell.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

// Of a failing program's standard error, the end is kept (that is where srun or mpirun says why)
// and its last lines are quoted in the failure.
constexpr std::size_t kErrorTailBytes = 8u << 10;
constexpr std::size_t kQuotedErrorLines = 3;
constexpr std::size_t kQuotedErrorChars = 500;

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  ::setpgid(0, 0);
  const int null = ::open("/dev/null", O_RDWR);
  ::dup2(null, STDIN_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(127);
}

// Milliseconds left until `deadline`, at least 0 and at most `most`.
int ms_left(Clock::time_point deadline, int most) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? int(std::min<long long>(left, most)) : 0;
}

bool cancelled(const CaptureLimits& limits) { return limits.cancel && limits.cancel->load(); }

// ": " and the last lines of what the program wrote to standard error, control characters escaped
// and clipped, so hostile output cannot garble the message; nothing when it wrote nothing.
std::string error_words(const std::string& error_tail) {
  auto lines = nonblank_lines(error_tail);
  if (lines.empty()) return "";
  if (lines.size() > kQuotedErrorLines) lines.erase(lines.begin(), lines.end() - kQuotedErrorLines);
  std::string words;
  for (const auto& line : lines) words += (words.empty() ? "" : " / ") + escape_control_characters(line);
  if (words.size() > kQuotedErrorChars) words = "..." + words.substr(words.size() - kQuotedErrorChars);
  return ": " + words;
}

}  // namespace

std::vector<std::string> nonblank_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const auto first = output.find_first_not_of(" \t\r", start);
    if (first != std::string::npos && first < end) {
      const auto last = output.find_last_not_of(" \t\r", end - 1);
      lines.push_back(output.substr(first, last - first + 1));
    }
    start = end + 1;
  }
  return lines;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& word : argv) text += (text.empty() ? "" : " ") + word;
  return "`" + text + "`";
}

std::string capture_output(const std::vector<std::string>& argv, const CaptureLimits& limits) {
  int pipe_fds[2];
  int error_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  if (::pipe2(error_fds, O_CLOEXEC) != 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(argv, pipe_fds[1], error_fds[1]);
  ::close(pipe_fds[1]);
  ::close(error_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(error_fds[0]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", command_text(argv), std::strerror(errno)));
  }
  ::setpgid(pid, pid);  // also here, so the kill below never misses the group
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
  std::string output;
  std::string error_tail;
  std::string overrun;
  bool gave_up = false;
  const int wait_ms = limits.cancel ? 50 : 1000;  // how long a wait for output may hold off the cancel flag
  char chunk[65536];
  bool open = true;
  bool error_open = true;
  int status = 0;
  bool exited = false;
  // Reads what one pipe has ready into `into`; false once it is closed.
  const auto read_some = [&](int fd, std::string& into) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) into.append(chunk, std::size_t(n));
    return n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN));
  };
  // Reads what standard error has ready, keeping only its end.
  const auto read_error = [&] {
    error_open = read_some(error_fds[0], error_tail);
    if (error_tail.size() > kErrorTailBytes) error_tail.erase(0, error_tail.size() - kErrorTailBytes);
  };
  while (overrun.empty() && !gave_up) {
    // Until standard output closes, wait on both pipes; after it, on standard error only briefly
    // between looks at whether the program has exited (a child it left behind may hold that open).
    if (open || error_open) {
      pollfd watch[2] = {{open ? pipe_fds[0] : -1, POLLIN, 0}, {error_open ? error_fds[0] : -1, POLLIN, 0}};
      if (::poll(watch, 2, open ? ms_left(deadline, wait_ms) : 10) > 0) {
        if (watch[0].revents != 0) open = read_some(pipe_fds[0], output);
        if (watch[1].revents != 0) read_error();
        if (output.size() > limits.max_bytes) overrun = fmt::format("printed more than {} bytes", limits.max_bytes);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!open && overrun.empty() && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    if (overrun.empty() && Clock::now() >= deadline) {
      overrun = fmt::format("did not finish within {} s", limits.timeout_s);
    }
    gave_up = cancelled(limits);
  }
  // What the program wrote to standard error just before it exited may still be in the pipe (two
  // reads take a full pipe; a child left behind that keeps writing is not waited for).
  for (int reads = 0; exited && error_open && reads < 2; ++reads) {
    pollfd watch{error_fds[0], POLLIN, 0};
    if (::poll(&watch, 1, 0) <= 0) break;
    read_error();
  }
  ::close(pipe_fds[0]);
  ::close(error_fds[0]);
  if (!exited) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    if (overrun.empty()) throw CaptureCancelled(fmt::format("{} was given up on and killed", command_text(argv)));
    throw CaptureOverrun(fmt::format("{} {} and was killed", command_text(argv), overrun));
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(
        fmt::format("{} was killed by signal {}{}", command_text(argv), WTERMSIG(status), error_words(error_tail)));
  }
  if (WEXITSTATUS(status) == 127 && output.empty()) {
    throw std::runtime_error(fmt::format("cannot start {}{}", command_text(argv), error_words(error_tail)));
  }
  if (WEXITSTATUS(status) != 0) {
    throw std::runtime_error(
        fmt::format("{} exited with {}{}", command_text(argv), WEXITSTATUS(status), error_words(error_tail)));
  }
  return output;
}

}  // namespace mt
