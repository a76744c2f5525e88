#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

TEST_CASE("the guard's arguments carry the cleanup and the command, and read back") {
  JobCleanup cleanup{{"scancel", "--me", "--name", "mtrun-x-1"}, {"squeue", "--name", "mtrun-x-1"}};
  auto args = guard_arguments(cleanup, "/usr/bin/srun");
  CHECK(args.front() == kGuardSubcommand);
  args.insert(args.end(), {"-n", "2", "--", "--cancel"});  // the command's own words stay its own
  const auto parsed = parse_guard_arguments({args.begin() + 1, args.end()});
  REQUIRE(parsed);
  CHECK(parsed->cleanup.cancel == cleanup.cancel);
  CHECK(parsed->cleanup.list_left == cleanup.list_left);
  CHECK(parsed->command == std::vector<std::string>{"/usr/bin/srun", "-n", "2", "--", "--cancel"});

  CHECK(parse_guard_arguments({"--", "mpirun"})->cleanup.empty());
  CHECK_FALSE(parse_guard_arguments({"mpirun"}));               // no "--"
  CHECK_FALSE(parse_guard_arguments({"--cancel", "x", "--"}));  // no command
  CHECK_FALSE(parse_guard_arguments({"--cancel"}));
  CHECK_FALSE(parse_guard_arguments({"--other", "x", "--", "mpirun"}));
}
