#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "launch/process.h"
#include "launch/queue_note.h"
#include "launch/queue_watch.h"
#include "store/result_ingest.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

// A scheduler stand-in: the job's state is whatever the file `state` holds (`cat` of it).
struct FakeQueue {
  fs::path dir = fs::temp_directory_path() / ("mtrun_queue_watch_test_" + std::to_string(::getpid()));
  fs::path state = dir / "state";

  FakeQueue() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~FakeQueue() { fs::remove_all(dir); }

  void set(const std::string& words) const { std::ofstream(state) << words << "\n"; }
  std::vector<std::string> job_state() const { return {"cat", state.string()}; }
  std::string log(const ProcessSpec& spec) const {
    std::ifstream in(spec.log_file);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  ProcessSpec spec(std::vector<std::string> argv, double timeout_s) const {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.log_file = dir / "log.txt";
    s.working_dir = dir;
    s.timeout_s = timeout_s;
    s.terminate_grace_s = 1;
    s.job_state = job_state();
    s.queue_look_every_s = 0.05;
    return s;
  }
};

void pause_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

TEST_CASE("Slurm states of a job that has not started") {
  for (const char* waits : {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD"}) CHECK(slurm_state_waits(waits));
  for (const char* runs : {"RUNNING", "COMPLETING", "COMPLETED", "SUSPENDED", "CANCELLED", ""}) {
    CHECK_FALSE(slurm_state_waits(runs));
  }
}

TEST_CASE("the watch moves the run clock while the job waits, and stops once it has started") {
  FakeQueue queue;
  queue.set("PENDING Resources");
  const auto launched = QueueWatch::Clock::now();
  QueueWatch watch(queue.job_state(), launched, 0);
  watch.look();
  CHECK(watch.waiting());
  CHECK(watch.last_state() == "PENDING Resources");
  pause_s(0.2);
  watch.look();
  CHECK(watch.queued_s() >= 0.2);
  CHECK(watch.run_clock_start() > launched);

  queue.set("RUNNING None");
  watch.look();
  CHECK_FALSE(watch.waiting());
  const double queued = watch.queued_s();
  queue.set("PENDING Resources");  // no longer asked: a started job's clock does not move back
  pause_s(0.05);
  watch.look();
  CHECK_FALSE(watch.waiting());
  CHECK(watch.queued_s() == queued);
  CHECK(watch.last_state() == "RUNNING None");
}

TEST_CASE("while the job waits, a note says so and since when; it goes once the job has started") {
  FakeQueue queue;
  const fs::path note = queue.dir / kQueueNoteName;
  queue.set("PENDING Priority");
  const std::time_t before = std::time(nullptr);
  {
    QueueWatch watch(queue.job_state(), QueueWatch::Clock::now(), 0);
    watch.note_in(note);
    watch.look();
    auto said = read_queue_note(note);
    REQUIRE(said);
    CHECK(said->state == "PENDING Priority");
    CHECK(said->launched_at >= before - 1);  // the launch, in wall-clock seconds
    CHECK(said->launched_at <= std::time(nullptr));

    queue.set("PENDING Resources");
    watch.look();
    said = read_queue_note(note);
    REQUIRE(said);
    CHECK(said->state == "PENDING Resources");

    queue.set("RUNNING None");
    watch.look();
    CHECK_FALSE(fs::exists(note));

    QueueWatch failing({"sh", "-c", "exit 3"}, QueueWatch::Clock::now(), 0);
    failing.note_in(note);
    failing.look();
    CHECK_FALSE(fs::exists(note));
  }
  {
    queue.set("PENDING Resources");
    QueueWatch ended(queue.job_state(), QueueWatch::Clock::now(), 0);
    ended.note_in(note);
    ended.look();
    CHECK(fs::exists(note));
  }
  CHECK_FALSE(fs::exists(note));  // the watch ended (the job is over): no note is left

  // What is not a note reads as none.
  for (const char* text : {"", "soon\nPENDING\n", "1700000000\n\n", "17x\nPENDING\n"}) {
    std::ofstream(note) << text;
    CHECK_FALSE(read_queue_note(note));
  }
}

TEST_CASE("a job the scheduler does not list, a failing question, or nothing to ask leave the clock at the launch") {
  FakeQueue queue;
  queue.set("");
  const auto launched = QueueWatch::Clock::now();
  QueueWatch unlisted(queue.job_state(), launched, 0);
  for (int i = 0; i < 3; ++i) unlisted.look();
  queue.set("PENDING Resources");  // after three empty answers it is no longer asked
  unlisted.look();
  CHECK_FALSE(unlisted.waiting());
  CHECK(unlisted.run_clock_start() == launched);

  QueueWatch failing({"sh", "-c", "exit 3"}, launched, 0);
  failing.look();
  CHECK_FALSE(failing.waiting());
  CHECK(failing.problem().find("exited with 3") != std::string::npos);
  CHECK(failing.run_clock_start() == launched);

  QueueWatch none({}, launched, 0);
  none.look();
  CHECK_FALSE(none.waiting());
  CHECK(none.queued_s() == 0);
}

TEST_CASE("Ctrl-C gives up a question to a slow scheduler: no answer, and no problem with the scheduler") {
  std::atomic<bool> interrupt{true};
  QueueWatch slow({"sh", "-c", "exec sleep 30"}, QueueWatch::Clock::now(), 0, &interrupt);
  slow.look();  // without giving up: 10 s, then "did not finish within 10 s" as the scheduler's problem
  CHECK(slow.problem().empty());
  CHECK_FALSE(slow.waiting());

  // A trial stopped while mtrun waits on that scheduler: interrupted, and its log blames nothing.
  FakeQueue queue;
  ProcessSpec spec = queue.spec({"sleep", "30"}, 60);
  spec.job_state = {"sh", "-c", "exec sleep 30"};
  std::atomic<bool> stop{false};
  std::thread ctrl_c([&] {
    pause_s(0.3);
    stop = true;
  });
  const ProcessOutcome outcome = run_process(spec, &stop);
  ctrl_c.join();
  CHECK(outcome.end == ProcessEnd::Interrupted);
  CHECK(queue.log(spec).find("could not ask the scheduler") == std::string::npos);
}

TEST_CASE("a trial's timeout counts from its start: time in the queue is not run time") {
  FakeQueue queue;
  queue.set("PENDING Resources");
  // Queued for 2 s (the job itself marks its start), then 0.5 s of work: 2.5 s from the launch,
  // against a timeout of 1.5 s.
  const std::string job = "sleep 2; echo 'RUNNING None' > '" + queue.state.string() + "'; sleep 0.5";
  ProcessSpec spec = queue.spec({"sh", "-c", job}, 1.5);
  std::vector<std::string> told;  // what a progress line hears
  spec.queue_state_changed = [&](const std::string& state) { told.push_back(state); };
  const ProcessOutcome outcome = run_process(spec);
  CHECK(told == std::vector<std::string>{"PENDING Resources", ""});
  CHECK(outcome.end == ProcessEnd::Exited);
  CHECK(outcome.queued_s > 1.5);
  CHECK_FALSE(fs::exists(queue.dir / kQueueNoteName));  // the note went when the job started
  CHECK_FALSE(outcome.stopped_in_queue);
  CHECK(queue.log(spec).find("mtrun: the job waited") != std::string::npos);

  // A job that started long ago times out on its own time, and the reason says when it started.
  queue.set("PENDING Priority");
  const std::string slow = "sleep 0.5; echo 'RUNNING None' > '" + queue.state.string() + "'; sleep 30";
  const ProcessSpec slow_spec = queue.spec({"sh", "-c", slow}, 0.5);
  const ProcessOutcome timed_out = run_process(slow_spec);
  CHECK(timed_out.end == ProcessEnd::TimedOut);
  CHECK(timed_out.duration_s > 0.7);  // its 0.5 s counted from (about) the end of the queue
  Trial trial;
  trial.timeout_s = 0.5;
  const auto reason = classify_attempt(timed_out, queue.dir / "result.json", slow_spec.log_file, trial).error_reason;
  REQUIRE(reason);
  CHECK(reason->find("trial exceeded its 0.5 s timeout (timeout_s), counted from its start after") !=
        std::string::npos);
}

TEST_CASE("a job still queued after the launcher's queue_timeout_s is stopped, never having started") {
  FakeQueue queue;
  queue.set("PENDING Resources");
  ProcessSpec spec = queue.spec({"sleep", "30"}, 30);
  spec.queue_timeout_s = 0.3;
  const ProcessOutcome outcome = run_process(spec);
  REQUIRE(outcome.end == ProcessEnd::TimedOut);
  CHECK(outcome.stopped_in_queue);
  CHECK(outcome.duration_s < 10);
  CHECK(queue.log(spec).find("past the launcher's queue_timeout_s of 0.3 s; it never started") != std::string::npos);
  Trial trial;
  trial.timeout_s = 30;
  const AttemptOutcome attempt = classify_attempt(outcome, queue.dir / "result.json", spec.log_file, trial);
  CHECK(attempt.state == AttemptState::TimedOut);
  REQUIRE(attempt.error_reason);
  CHECK(attempt.error_reason->find("trial was still queued after") == 0);
  CHECK(attempt.error_reason->find("(PENDING Resources), past the launcher's queue_timeout_s; it never started; its "
                                   "job was cancelled") != std::string::npos);
}

TEST_CASE("a scheduler that cannot be asked is said in the log, and the timeout counts from the launch") {
  FakeQueue queue;
  ProcessSpec spec = queue.spec({"sleep", "0.3"}, 30);
  spec.job_state = {"sh", "-c", "exit 2"};
  const ProcessOutcome outcome = run_process(spec);
  CHECK(outcome.end == ProcessEnd::Exited);
  CHECK(queue.log(spec).find("could not ask the scheduler whether the job had started") != std::string::npos);
  CHECK(queue.log(spec).find("its timeout counted from the launch") != std::string::npos);
}
