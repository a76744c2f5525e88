#include "launch/job_guard.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "launch/process.h"

namespace mt {
namespace {

volatile sig_atomic_t g_terminate = 0;

void on_terminate(int) { g_terminate = 1; }

// SIGTERM everyone else in our session, give them `grace_s` to exit, then SIGKILL what is left.
void take_down_session(pid_t child, double grace_s) {
  const pid_t session = ::getsid(0);
  ::kill(child, SIGTERM);  // the launcher first: mpirun forwards it to its ranks
  for (int waited_ms = 0; waited_ms < grace_s * 1000; waited_ms += 50) {
    if (::waitpid(child, nullptr, WNOHANG) == child) break;
    ::usleep(50 * 1000);
  }
  signal_session(session, SIGKILL, ::getpid());
}

}  // namespace

int run_job_guard(int argc, char** argv) {
  if (argc < 1) {
    std::fprintf(stderr, "mtrun %s: no command given\n", kGuardSubcommand);
    return 2;
  }
  const pid_t runner = ::getppid();
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (::getppid() != runner) return 130;  // the runner died before we could watch it

  const pid_t child = ::fork();
  if (child == 0) {
    // Back to default dispositions so the launcher sees signals as usual.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    ::execvp(argv[0], argv);
    std::fprintf(stderr, "mtrun: cannot execute %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  if (child < 0) {
    std::fprintf(stderr, "mtrun: fork failed: %s\n", std::strerror(errno));
    return 1;
  }

  int status = 0;
  while (true) {
    pid_t done = g_terminate ? -1 : ::waitpid(-1, &status, 0);  // also reaps adopted ranks
    if (done == child) break;
    if (g_terminate) {
      take_down_session(child, 5.0);
      ::waitpid(child, &status, 0);
      break;
    }
    if (done < 0 && errno == ECHILD) break;
  }
  signal_session(::getsid(0), SIGKILL, ::getpid());  // ranks left behind by the launcher
  kill_descendants();  // and processes that left the session (setsid, daemons): we adopted them
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    ::raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace mt
