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

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int out_fd) {
  ::setpgid(0, 0);
  const int null = ::open("/dev/null", O_RDWR);
  ::dup2(null, STDIN_FILENO);
  ::dup2(null, STDERR_FILENO);
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
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(argv, pipe_fds[1]);
  ::close(pipe_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", command_text(argv), std::strerror(errno)));
  }
  ::setpgid(pid, pid);  // also here, so the kill below never misses the group
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
  std::string output;
  std::string overrun;
  bool gave_up = false;
  const int wait_ms = limits.cancel ? 50 : 1000;  // how long a wait for output may hold off the cancel flag
  char chunk[65536];
  bool open = true;
  int status = 0;
  bool exited = false;
  while (overrun.empty() && !gave_up) {
    if (open) {
      pollfd watch{pipe_fds[0], POLLIN, 0};
      const int ready = ::poll(&watch, 1, ms_left(deadline, wait_ms));
      if (ready > 0) {
        const ssize_t n = ::read(pipe_fds[0], chunk, sizeof chunk);
        if (n > 0) output.append(chunk, std::size_t(n));
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) open = false;
        if (output.size() > limits.max_bytes) overrun = fmt::format("printed more than {} bytes", limits.max_bytes);
      }
    } else if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (overrun.empty() && Clock::now() >= deadline) {
      overrun = fmt::format("did not finish within {} s", limits.timeout_s);
    }
    gave_up = cancelled(limits);
  }
  ::close(pipe_fds[0]);
  if (!exited) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    if (overrun.empty()) throw CaptureCancelled(fmt::format("{} was given up on and killed", command_text(argv)));
    throw CaptureOverrun(fmt::format("{} {} and was killed", command_text(argv), overrun));
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(fmt::format("{} was killed by signal {}", command_text(argv), WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) == 127 && output.empty()) {
    throw std::runtime_error(fmt::format("cannot start {}", command_text(argv)));
  }
  if (WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("{} exited with {}", command_text(argv), WEXITSTATUS(status)));
  }
  return output;
}

}  // namespace mt
