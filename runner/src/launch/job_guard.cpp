#include "launch/job_guard.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "launch/process.h"

namespace mt {
namespace {

volatile sig_atomic_t g_terminate = 0;
volatile sig_atomic_t g_runner_died = 0;

void on_terminate(int) { g_terminate = 1; }
void on_runner_death(int) { g_runner_died = 1; }

// SIGTERM everyone else in our session, give them `grace_s` to exit, then SIGKILL what is left.
// Returns the launcher's wait status.
int take_down_session(pid_t child, double grace_s) {
  const pid_t session = ::getsid(0);
  ::kill(child, SIGTERM);  // the launcher first: mpirun forwards it to its ranks
  int status = 0;
  for (int waited_ms = 0; waited_ms < grace_s * 1000; waited_ms += 50) {
    if (::waitpid(child, &status, WNOHANG) == child) {
      signal_session(session, SIGKILL, ::getpid());
      return status;
    }
    ::usleep(50 * 1000);
  }
  signal_session(session, SIGKILL, ::getpid());
  ::waitpid(child, &status, 0);
  return status;
}

constexpr const char* kCancelFlag = "--cancel";
constexpr const char* kListLeftFlag = "--list-left";
constexpr const char* kNameFlag = "--name";
constexpr const char* kCancelListedFlag = "--cancel-listed";  // takes no value

}  // namespace

std::vector<std::string> guard_arguments(const JobCleanup& cleanup, const std::string& program) {
  std::vector<std::string> args = {kGuardSubcommand};
  for (const auto& word : cleanup.cancel) args.insert(args.end(), {kCancelFlag, word});
  for (const auto& word : cleanup.list_left) args.insert(args.end(), {kListLeftFlag, word});
  if (!cleanup.name.empty()) args.insert(args.end(), {kNameFlag, cleanup.name});
  if (cleanup.cancel_listed) args.push_back(kCancelListedFlag);
  args.insert(args.end(), {"--", program});
  return args;
}

std::optional<GuardCommand> parse_guard_arguments(const std::vector<std::string>& args) {
  GuardCommand parsed;
  std::size_t i = 0;
  for (; i < args.size() && args[i] != "--"; i += 2) {
    if (args[i] == kCancelListedFlag) {
      parsed.cleanup.cancel_listed = true;
      --i;  // no value follows
      continue;
    }
    if (i + 1 >= args.size()) return std::nullopt;
    if (args[i] == kCancelFlag) parsed.cleanup.cancel.push_back(args[i + 1]);
    else if (args[i] == kListLeftFlag) parsed.cleanup.list_left.push_back(args[i + 1]);
    else if (args[i] == kNameFlag) parsed.cleanup.name = args[i + 1];
    else return std::nullopt;
  }
  if (i + 1 >= args.size()) return std::nullopt;  // no "--", or nothing after it
  parsed.command.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());
  return parsed;
}

int run_job_guard(int argc, char** argv) {
  const auto guarded = parse_guard_arguments(std::vector<std::string>(argv, argv + argc));
  if (!guarded) {
    std::fprintf(stderr,
                 "mtrun %s: expected [--cancel WORD]... [--list-left WORD]... [--name NAME] [--cancel-listed] -- "
                 "COMMAND...\n",
                 kGuardSubcommand);
    return 2;
  }
  std::vector<char*> command;
  for (const auto& word : guarded->command) command.push_back(const_cast<char*>(word.c_str()));
  command.push_back(nullptr);
  const pid_t runner = ::getppid();
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  // A signal of its own, not the runner's SIGTERM: the kernel sends it when the runner's thread
  // that started us ends, which under SIGKILL can come before the runner's last thread is gone (our
  // parent is then still the runner), and the runner that is dying cannot clean up.
  action.sa_handler = on_runner_death;
  sigaction(kRunnerDeathSignal, &action, nullptr);
  ::prctl(PR_SET_PDEATHSIG, kRunnerDeathSignal);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (::getppid() != runner) return 130;  // the runner died before we could watch it

  const pid_t child = ::fork();
  if (child == 0) {
    // Back to default dispositions so the launcher sees signals as usual.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    ::execvp(command[0], command.data());
    std::fprintf(stderr, "mtrun: cannot execute %s: %s\n", command[0], std::strerror(errno));
    ::_exit(127);
  }
  if (child < 0) {
    std::fprintf(stderr, "mtrun: fork failed: %s\n", std::strerror(errno));
    return 1;
  }

  // Polled, not a blocking waitpid: a SIGTERM that lands between the flag's check and the call
  // would be handled before the wait began, which then lasts as long as the job (a batch job whose
  // runner was killed: forever), and the job would never be taken down. The runner's death is also
  // seen by its PID: the parent-death signal is the fast way, not the only one.
  // Once gone, always gone: the death signal's flag stays set, and an orphan is never handed back.
  const auto runner_gone = [runner] { return g_runner_died || ::getppid() != runner; };
  int status = 0;
  while (true) {
    if (const bool gone = runner_gone(); g_terminate || gone) {
      if (gone) std::printf("mtrun: the runner (PID %d) is gone: taking the job down\n", int(runner));
      std::fflush(stdout);
      status = take_down_session(child, 5.0);
      break;
    }
    int reaped = 0;
    const pid_t done = ::waitpid(-1, &reaped, WNOHANG);  // also reaps adopted ranks
    if (done == child) {
      status = reaped;
      break;
    }
    if (done < 0 && errno == ECHILD) break;
    if (done <= 0) ::usleep(20 * 1000);
  }
  signal_session(::getsid(0), SIGKILL, ::getpid());  // ranks left behind by the launcher
  kill_descendants();  // and processes that left the session (setsid, daemons): we adopted them
  // A runner that is alive cleans up itself and records how it went; a dead one cannot.
  if (runner_gone()) clean_up_job(guarded->cleanup, std::cout);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    ::raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace mt
