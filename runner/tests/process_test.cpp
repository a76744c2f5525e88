#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "launch/process.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {
ProcessSpec spec_for(std::vector<std::string> argv, double timeout_s = 30) {
  fs::path dir = fs::temp_directory_path() / ("mtrun_process_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.log_file = dir / "log.txt";
  spec.working_dir = dir;
  spec.timeout_s = timeout_s;
  spec.terminate_grace_s = 1;
  return spec;
}

bool pid_alive(int pid) { return ::kill(pid, 0) == 0; }

// The PID a test script wrote to `file` in its working directory, or 0.
int written_pid(const ProcessSpec& spec, const char* file) {
  std::ifstream in(spec.working_dir / file);
  int pid = 0;
  in >> pid;
  return pid;
}
}  // namespace

TEST_CASE("exit codes, output capture and signals are reported") {
  auto ok = run_process(spec_for({"sh", "-c", "echo hello; echo oops >&2; exit 3"}));
  CHECK(ok.end == ProcessEnd::Exited);
  CHECK(ok.exit_code == 3);
  std::ifstream log(spec_for({}).log_file);
  std::string text((std::istreambuf_iterator<char>(log)), {});
  CHECK(text.find("hello") != std::string::npos);
  CHECK(text.find("oops") != std::string::npos);

  auto killed = run_process(spec_for({"sh", "-c", "kill -9 $$"}));
  CHECK(killed.end == ProcessEnd::Signaled);
  CHECK(killed.signal == SIGKILL);
}

TEST_CASE("a missing program is a launch failure, not a crash") {
  auto r = run_process(spec_for({"no-such-program-mtrun-test"}));
  CHECK(r.end == ProcessEnd::LaunchFailed);
  CHECK(r.launch_error == "'no-such-program-mtrun-test' not found (looked on PATH)");
}

TEST_CASE("a timeout kills the launcher and descendants in other process groups") {
  become_child_subreaper();
  // The grandchild runs in its own process group (like an Open MPI rank) and records its PID.
  auto spec = spec_for({"sh", "-c", "set -m; sleep 300 & echo $! > grandchild.pid; wait"}, 1.0);
  auto r = run_process(spec);
  CHECK(r.end == ProcessEnd::TimedOut);
  const int grandchild = written_pid(spec, "grandchild.pid");
  REQUIRE(grandchild > 0);
  CHECK_FALSE(pid_alive(grandchild));
}

TEST_CASE("a job's timeout counts from the end of what it runs before its ranks, which is bounded too") {
  // 2 s before its ranks, then 2 s of them: within a timeout of 3 s counted from the ranks' start.
  auto spec = spec_for({"sh", "-c", "sleep 2; touch look.json; sleep 2"}, 3);
  fs::remove(spec.working_dir / "look.json");
  spec.ranks_start_file = spec.working_dir / "look.json";
  spec.before_ranks_s = 30;
  auto outcome = run_process(spec);
  CHECK(outcome.end == ProcessEnd::Exited);
  CHECK(outcome.exit_code == 0);
  std::ifstream log(spec.log_file);
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  CHECK(text.find("its timeout counted from its end") != std::string::npos);

  // Its ranks then run past the timeout: stopped.
  fs::remove(spec.working_dir / "look.json");
  spec.argv = {"sh", "-c", "touch look.json; exec sleep 30"};
  spec.timeout_s = 0.5;
  CHECK(run_process(spec).end == ProcessEnd::TimedOut);

  // What runs before the ranks never ends: stopped once it has had its time and the timeout's.
  fs::remove(spec.working_dir / "look.json");
  spec.argv = {"sh", "-c", "exec sleep 30"};
  spec.before_ranks_s = 0.5;
  outcome = run_process(spec);
  CHECK(outcome.end == ProcessEnd::TimedOut);
  std::ifstream log2(spec.log_file);
  const std::string text2((std::istreambuf_iterator<char>(log2)), std::istreambuf_iterator<char>());
  CHECK(text2.find("look.json never appeared); its timeout allowed it 0.5 s more") != std::string::npos);
}

TEST_CASE("a launcher that exits leaving an orphan behind does not leave it running") {
  become_child_subreaper();
  auto spec = spec_for({"sh", "-c", "set -m; sleep 300 & echo $! > orphan.pid; exit 0"});
  auto r = run_process(spec);
  CHECK(r.end == ProcessEnd::Exited);
  const int orphan = written_pid(spec, "orphan.pid");
  REQUIRE(orphan > 0);
  CHECK_FALSE(pid_alive(orphan));
}

TEST_CASE("an interrupt terminates the running job") {
  std::atomic<bool> stop{false};
  std::thread trigger([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  auto r = run_process(spec_for({"sleep", "300"}), &stop);
  trigger.join();
  CHECK(r.end == ProcessEnd::Interrupted);
}

TEST_CASE("a batch job's own output file is appended to the log, bounded to a regular file") {
  ProcessSpec spec = spec_for({"sh", "-c", "echo from the launcher; echo from the job > batch-job.out"});
  spec.job_output_file = "batch-job.out";
  fs::remove(spec.working_dir / "batch-job.out");
  CHECK(run_process(spec).exit_code == 0);
  std::ifstream in(spec.log_file);
  const std::string log((std::istreambuf_iterator<char>(in)), {});
  CHECK(log == "from the launcher\nmtrun: the job's own output (" + (spec.working_dir / "batch-job.out").string() +
                   ") follows\nfrom the job\n");

  // A FIFO in its place would block a reader forever: it is not read.
  fs::remove(spec.working_dir / "batch-job.out");
  spec.argv = {"mkfifo", "batch-job.out"};
  CHECK(run_process(spec).exit_code == 0);
  std::ifstream again(spec.log_file);
  CHECK(std::string((std::istreambuf_iterator<char>(again)), {}).find("mtrun: the job left no regular file") == 0);
  fs::remove(spec.working_dir / "batch-job.out");
}
