#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "launch/job_cleanup.h"
#include "launch/job_guard.h"
#include "launch/process.h"
#include "store/result_ingest.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

// A scheduler stand-in in shell: `cancel` counts its calls in a file; `list_left` prints a job line
// until the cancel has run `cancels_to_end` times (0: never ends).
struct FakeScheduler {
  fs::path dir = fs::temp_directory_path() / ("mtrun_job_cleanup_test_" + std::to_string(::getpid()));
  fs::path cancels = dir / "cancels";

  explicit FakeScheduler() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~FakeScheduler() { fs::remove_all(dir); }

  JobCleanup cleanup(int cancels_to_end) const {
    const std::string count = "$(cat '" + cancels.string() + "' 2>/dev/null | wc -l)";
    JobCleanup c;
    c.cancel = {"sh", "-c", "echo cancel >> '" + cancels.string() + "'"};
    c.list_left = {"sh", "-c",
                   cancels_to_end > 0
                       ? "[ " + count + " -ge " + std::to_string(cancels_to_end) + " ] || echo '  42 RUNNING'"
                       : "echo '42 RUNNING'; echo '43 COMPLETING'"};
    return c;
  }
  int cancel_count() const {
    std::ifstream in(cancels);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }
};

CleanupLimits quick(double wait_s) { return {wait_s, 0.2, 0.05, 5}; }

}  // namespace

TEST_CASE("the cleanup cancels again until the scheduler no longer lists the job") {
  FakeScheduler scheduler;
  std::ostringstream log;
  CHECK(clean_up_job(scheduler.cleanup(3), log, quick(10)) == "");
  CHECK(scheduler.cancel_count() == 3);
  CHECK(log.str().find("mtrun: cancelling what may be left of the job: `sh -c echo cancel") != std::string::npos);
  CHECK(log.str().find("nothing of the job is left") != std::string::npos);
}

TEST_CASE("a job the scheduler still lists after the wait is reported, with what is left") {
  FakeScheduler scheduler;
  std::ostringstream log;
  const std::string problem = clean_up_job(scheduler.cleanup(0), log, quick(0.5));
  CHECK(problem.find("the job is still listed 0.5 s after `sh -c echo cancel") != std::string::npos);
  CHECK(problem.find("42 RUNNING; 43 COMPLETING") != std::string::npos);
  CHECK(problem.find("cancel it by hand") != std::string::npos);
  CHECK(scheduler.cancel_count() >= 2);  // cancelled again while it was listed
  CHECK(log.str().find(problem) != std::string::npos);
}

TEST_CASE("a look that fails, or a cancel that fails with nothing to look with, is reported") {
  FakeScheduler scheduler;
  std::ostringstream log;
  JobCleanup unanswered = scheduler.cleanup(1);
  unanswered.list_left = {"sh", "-c", "exit 1"};
  const std::string problem = clean_up_job(unanswered, log, quick(0.3));
  CHECK(problem.find("could not check that the job is gone") != std::string::npos);
  CHECK(problem.find("exited with 1") != std::string::npos);

  JobCleanup blind;
  blind.cancel = {"no-such-scancel-mtrun-test"};
  CHECK(clean_up_job(blind, log, quick(0.3)).find("so the job may still be running") != std::string::npos);
  CHECK(clean_up_job(JobCleanup{}, log, quick(0.3)) == "");  // nothing to do
}

TEST_CASE("a trial stopped by its timeout runs the cleanup, and its outcome says what is left") {
  FakeScheduler scheduler;
  ProcessSpec spec;
  spec.argv = {"sleep", "30"};
  spec.log_file = scheduler.dir / "log.txt";
  spec.working_dir = scheduler.dir;
  spec.timeout_s = 0.3;
  spec.terminate_grace_s = 1;
  spec.cleanup = scheduler.cleanup(0);
  spec.cleanup_limits = quick(0.5);
  const ProcessOutcome outcome = run_process(spec);
  REQUIRE(outcome.end == ProcessEnd::TimedOut);
  CHECK(outcome.cleanup_problem.find("42 RUNNING") != std::string::npos);
  std::ifstream in(spec.log_file);
  const std::string log((std::istreambuf_iterator<char>(in)), {});
  CHECK(log.find(outcome.cleanup_problem) != std::string::npos);

  Trial trial;
  trial.timeout_s = 1;
  const AttemptOutcome attempt = classify_attempt(outcome, scheduler.dir / "result.json", spec.log_file, trial);
  CHECK(attempt.state == AttemptState::TimedOut);
  REQUIRE(attempt.error_reason);
  CHECK(attempt.error_reason->find("every rank was killed") == std::string::npos);
  CHECK(attempt.error_reason->find("the launcher's processes were killed, but the job is still listed") !=
        std::string::npos);

  spec.cleanup = scheduler.cleanup(1);  // ends at the first cancel
  const ProcessOutcome clean = run_process(spec);
  CHECK(clean.cleanup_problem == "");
  const AttemptOutcome gone = classify_attempt(clean, scheduler.dir / "result.json", spec.log_file, trial);
  CHECK(gone.error_reason->find("every rank was killed") != std::string::npos);
}

TEST_CASE("a step is cancelled by the IDs listed under its name, once listed, and only those") {
  FakeScheduler scheduler;
  const std::string calls = (scheduler.dir / "calls").string();
  JobCleanup steps;
  // The cancel records its arguments; the look lists another step, and this job's two until cancelled.
  steps.cancel = {"sh", "-c", "echo \"$@\" >> '" + calls + "'", "scancel"};
  steps.cancel_listed = true;
  steps.name = "mtrun-x-1";
  steps.list_left = {"sh", "-c",
                     "echo '7.0 other-job'; [ -s '" + calls + "' ] || printf '7.1 mtrun-x-1\\n7.2 mtrun-x-1\\n'"};
  std::ostringstream log;
  CHECK(clean_up_job(steps, log, quick(10)) == "");
  std::ifstream in(calls);
  const std::string cancelled((std::istreambuf_iterator<char>(in)), {});
  CHECK(cancelled == "7.1 7.2\n");  // one cancel, of this job's steps alone
  CHECK(log.str().find("lists nothing named mtrun-x-1") != std::string::npos);

  // Nothing listed under the name: nothing is cancelled.
  fs::remove(calls);
  steps.list_left = {"sh", "-c", "echo '7.0 other-job'"};
  std::ostringstream quiet;
  CHECK(clean_up_job(steps, quiet, quick(10)) == "");
  CHECK_FALSE(fs::exists(calls));
  CHECK(quiet.str().find("cancelling") == std::string::npos);
}

TEST_CASE("the guard's arguments carry the cleanup and the command, and read back") {
  JobCleanup cleanup{{"scancel"}, {"squeue", "--steps", "--jobs", "7"}, "mtrun-x-1", true};
  auto args = guard_arguments(cleanup, "/usr/bin/srun");
  CHECK(args.front() == kGuardSubcommand);
  args.insert(args.end(), {"-n", "2", "--", "--cancel"});  // the command's own words stay its own
  const auto parsed = parse_guard_arguments({args.begin() + 1, args.end()});
  REQUIRE(parsed);
  CHECK(parsed->cleanup.cancel == cleanup.cancel);
  CHECK(parsed->cleanup.list_left == cleanup.list_left);
  CHECK(parsed->cleanup.name == "mtrun-x-1");
  CHECK(parsed->cleanup.cancel_listed);
  CHECK(parsed->command == std::vector<std::string>{"/usr/bin/srun", "-n", "2", "--", "--cancel"});

  CHECK(parse_guard_arguments({"--", "mpirun"})->cleanup.empty());
  CHECK_FALSE(parse_guard_arguments({"mpirun"}));               // no "--"
  CHECK_FALSE(parse_guard_arguments({"--cancel", "x", "--"}));  // no command
  CHECK_FALSE(parse_guard_arguments({"--cancel"}));
  CHECK_FALSE(parse_guard_arguments({"--other", "x", "--", "mpirun"}));
  CHECK_FALSE(parse_guard_arguments({"--name"}));
  CHECK_FALSE(parse_guard_arguments({"--cancel-listed", "--"}));  // no command
}

// What a guard started by a runner stand-in leaves: the files it and its job write.
struct GuardedJob {
  FakeScheduler scheduler;
  fs::path cancelled = scheduler.dir / "cancelled", job_pid = scheduler.dir / "job.pid";
  fs::path guard_pid = scheduler.dir / "guard.pid", guard_log = scheduler.dir / "guard.log";

  // In a child of the runner stand-in: runs the guard as the runner starts it, over a job that
  // writes its PID and sleeps, with a cleanup that leaves a file.
  [[noreturn]] void become_guard() const {
    ::setsid();  // as the runner starts it: the guard takes down its own session
    if (!std::freopen(guard_log.c_str(), "w", stdout)) ::_exit(3);
    std::vector<std::string> words = {"--cancel", "sh",
                                      "--cancel", "-c",
                                      "--cancel", "echo cancelled > '" + cancelled.string() + "'",
                                      "--",       "sh",
                                      "-c",       "echo $$ > '" + job_pid.string() + "'; exec sleep 300"};
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    ::_exit(run_job_guard(int(argv.size()), argv.data()));
  }
  void wait_for_job() const {  // by the clock: a loaded machine may take seconds to start it
    for (int k = 0; k < 6000 && !fs::exists(job_pid); ++k) ::usleep(10 * 1000);
  }
  // Once the runner stand-in has ended: the job was killed, the cleanup ran, the log says so.
  void check_taken_down_and_cleaned_up() const {
    for (int k = 0; k < 2000 && !fs::exists(cancelled); ++k) ::usleep(10 * 1000);
    CHECK(fs::exists(cancelled));
    int guard = 0, job = 0;
    std::ifstream(guard_pid) >> guard;
    std::ifstream(job_pid) >> job;
    REQUIRE(guard > 0);
    REQUIRE(job > 0);
    CHECK(::kill(job, 0) != 0);  // the guard killed the job before its cleanup
    for (int k = 0; k < 1000 && ::kill(guard, 0) == 0; ++k) {
      ::waitpid(guard, nullptr, WNOHANG);  // this process adopts it where it is a child subreaper
      ::usleep(10 * 1000);
    }
    if (::kill(guard, 0) == 0) ::kill(-guard, SIGKILL);  // a guard that failed leaves nothing running
    std::ifstream in(guard_log);
    const std::string log((std::istreambuf_iterator<char>(in)), {});
    CHECK(log.find("is gone: taking the job down") != std::string::npos);
    CHECK(log.find("mtrun: cancelling what may be left of the job: `sh -c") != std::string::npos);
  }
};

TEST_CASE("a guard whose runner died takes the job down and cleans up, even if the death signal never reaches it") {
  GuardedJob job;
  const pid_t runner = ::fork();
  REQUIRE(runner >= 0);
  if (runner == 0) {
    // The runner stand-in blocks the parent-death signal, which its children inherit: it stays
    // pending, and only the guard's own look at its parent can see the runner go.
    sigset_t death;
    sigemptyset(&death);
    sigaddset(&death, kRunnerDeathSignal);
    sigprocmask(SIG_BLOCK, &death, nullptr);
    const pid_t guard = ::fork();
    if (guard == 0) job.become_guard();
    std::ofstream(job.guard_pid) << guard;
    job.wait_for_job();
    ::_exit(0);  // the runner dies with its job running
  }
  ::waitpid(runner, nullptr, 0);
  job.check_taken_down_and_cleaned_up();
}

TEST_CASE("a guard whose starting thread ended cleans up, though the rest of the dying runner is still there") {
  GuardedJob job;
  const pid_t runner = ::fork();
  REQUIRE(runner >= 0);
  if (runner == 0) {
    // SIGKILL ends a runner's threads one by one: the one that started the guard may end first, and
    // the guard's parent is then still the runner for a while. Here that while lasts until the
    // guard is done; a guard that waited for it to end before cleaning up never would.
    pid_t guard = 0;
    std::thread starter([&] {
      guard = ::fork();
      if (guard == 0) job.become_guard();
      std::ofstream(job.guard_pid) << guard;
      job.wait_for_job();
    });
    starter.join();
    ::waitpid(guard, nullptr, 0);  // the ended thread's child is now the main thread's
    ::_exit(0);
  }
  ::waitpid(runner, nullptr, 0);
  job.check_taken_down_and_cleaned_up();
}
