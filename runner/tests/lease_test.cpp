// Campaign leases: a second runner is refused while the holder lives; a gone holder's lease (dead
// or recycled PID on this host, expired from another host) is taken over and its running attempts
// become interrupted; status shows such attempts as interrupted without writing.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "launch/queue_note.h"
#include "report/report.h"
#include "report/sections/failures_section.h"
#include "run/summary.h"
#include "runner_error.h"
#include "store/campaign_list.h"
#include "store/campaign_lookup.h"
#include "store/lease.h"
#include "store/store.h"
#include "store/store_reader.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kNow = 1700000000;

struct Fixture {
  fs::path path;
  Store store;
  std::int64_t trial_row = 0;

  explicit Fixture(const std::string& name) : path(fresh(name)), store(path) {
    store.add_campaign_if_new({"c", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
    Trial t;
    t.study = "s";
    t.workload = "command";
    t.identity = "trial1";
    t.group_key = "g";
    trial_row = store.add_trial_if_new("c", t, 0);
  }

  static fs::path fresh(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("mtrun_lease_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::remove(dir / name);
    return dir / name;
  }

  // An attempt recorded as running by `runner` (host, pid).
  void running_attempt(const RunnerId& runner, const std::string& run_dir = "/r") {
    store.db()
        .prepare(
            "INSERT INTO attempts (trial_id, attempt, state, command, run_dir, log_path, started_at, "
            "runner_host, runner_pid) VALUES (?, (SELECT coalesce(max(attempt), 0) + 1 FROM attempts), "
            "'running', 'x', ?, '/r/log', ?, ?, ?)")
        .bind(1, trial_row)
        .bind(2, run_dir)
        .bind(3, utc_now())
        .bind(4, runner.host)
        .bind(5, runner.pid)
        .run();
  }

  std::string states() {
    auto s = store.db().prepare("SELECT group_concat(state, ',') FROM (SELECT state FROM attempts ORDER BY id)");
    s.step();
    return s.text(0);
  }
};

// A PID that has just exited (and been reaped), so it runs nothing now.
std::int64_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

RunnerId elsewhere(std::int64_t pid) { return {"other-host", pid, "12345"}; }

}  // namespace

TEST_CASE("a second runner of a campaign is refused, naming the holder") {
  Fixture f("held.sqlite");
  CampaignLease mine(f.store.db(), "c", RunnerId::self(), kNow);
  RunnerId second = RunnerId::self();
  second.pid = dead_pid();  // another runner on this host (its liveness does not matter: the holder's does)
  try {
    CampaignLease again(f.store.db(), "c", second, kNow);
    FAIL("the second claim was accepted");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitFailure);
    const std::string expected_start = "campaign c is already being run by mtrun (pid " + std::to_string(::getpid()) +
                                       " on " + this_host() + ", since ";
    CHECK(std::string(e.what()).rfind(expected_start, 0) == 0);
    CHECK(std::string(e.what()).find("); one runner runs a campaign at a time: wait for it to finish, or stop it") !=
          std::string::npos);
  }
  // Another campaign in the same database is free.
  CampaignLease other(f.store.db(), "d", second, kNow);
}

TEST_CASE("a lease from another host binds until it expires, then is taken over") {
  Fixture f("expiry.sqlite");
  const RunnerId remote = elsewhere(4242);
  f.store.db()
      .prepare("INSERT INTO leases VALUES ('c', 'other-host', 4242, '12345', '2024-01-01T00:00:00Z', ?)")
      .bind(1, kNow + 100)
      .run();
  f.running_attempt(remote);
  CHECK_THROWS_AS(CampaignLease(f.store.db(), "c", RunnerId::self(), kNow + 100), RunnerError);
  CHECK(f.states() == "running");
  CHECK(attempt_runner_alive(f.store.db(), "c", "other-host", 4242, kNow + 100));

  CampaignLease mine(f.store.db(), "c", RunnerId::self(), kNow + 101);
  CHECK(mine.interrupted() == 1);
  CHECK(f.states() == "interrupted");
  CHECK_FALSE(renew_lease(f.store.db(), "c", remote, kNow + 102));  // the old holder learns it lost it
  CHECK(renew_lease(f.store.db(), "c", RunnerId::self(), kNow + 102));
}

TEST_CASE("on this host a lease binds while its PID runs with its start time") {
  Fixture f("pid.sqlite");
  RunnerId dead = RunnerId::self();
  dead.pid = dead_pid();
  RunnerId recycled = RunnerId::self();  // this PID, but not the process that took the lease
  recycled.start = "1";
  for (const RunnerId& gone : {dead, recycled}) {
    f.store.db().exec("DELETE FROM leases");
    f.store.db()
        .prepare("INSERT INTO leases VALUES ('c', ?, ?, ?, '2024-01-01T00:00:00Z', ?)")
        .bind(1, gone.host)
        .bind(2, gone.pid)
        .bind(3, gone.start)
        .bind(4, kNow + 1000000)  // far from expiring
        .run();
    f.running_attempt(gone);
    CHECK_FALSE(attempt_runner_alive(f.store.db(), "c", gone.host, gone.pid, kNow));
    CampaignLease taken(f.store.db(), "c", RunnerId::self(), kNow);
    CHECK(taken.interrupted() == 1);
  }
  CHECK(f.states() == "interrupted,interrupted");
}

TEST_CASE("a released lease is gone; stale attempts of other campaigns are swept") {
  Fixture f("release.sqlite");
  { CampaignLease lease(f.store.db(), "c", RunnerId::self(), kNow); }
  CHECK_FALSE(read_lease(f.store.db(), "c").has_value());
  f.running_attempt(elsewhere(7));  // no lease at all: its runner cannot be running it
  CHECK(f.store.interrupt_stale_attempts() == 1);
  CHECK(f.states() == "interrupted");
}

TEST_CASE("status shows a gone runner's attempt as interrupted without changing the database") {
  Fixture f("status.sqlite");
  RunnerId dead = RunnerId::self();
  dead.pid = dead_pid();
  f.running_attempt(dead);
  auto db = open_store_read_only(f.path);
  auto rows = campaign_trials(*db, "c");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].state == std::string("interrupted"));
  CHECK(rows[0].error_reason == "mtrun (pid " + std::to_string(dead.pid) + " on " + dead.host +
                                    ") is gone; the next `mtrun run` or `mtrun rerun --failed` runs this trial again");
  CHECK(f.states() == "running");  // only shown, not written

  // While the runner holds the campaign, its attempt is running.
  f.store.db().exec("DELETE FROM attempts");
  CampaignLease mine(f.store.db(), "c", RunnerId::self(), kNow);
  f.running_attempt(RunnerId::self());
  CHECK(campaign_trials(*db, "c")[0].state == std::string("running"));
  CHECK_FALSE(campaign_trials(*db, "c")[0].queued);
  const auto running_s = campaign_trials(*db, "c")[0].running_s;  // since its started_at, just now
  REQUIRE(running_s);
  CHECK(*running_s >= 0);
  CHECK(*running_s < 60);
  f.store.db().exec("UPDATE attempts SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-65 seconds')");
  CHECK(*campaign_trials(*db, "c")[0].running_s > 64.9);  // julianday keeps time as a fraction of a day
}

TEST_CASE("report and campaigns say what status says: a live runner's attempt runs, a gone runner's was interrupted") {
  Fixture f("report_running.sqlite");
  RunnerId dead = RunnerId::self();
  dead.pid = dead_pid();
  f.running_attempt(dead);
  {
    auto db = open_store_read_only(f.path);
    const ReportData data = load_report_data(*db, {campaign_by_id(*db, "c")});
    REQUIRE(data.trials.size() == 1);
    CHECK(data.trials[0].latest_state == std::string("interrupted"));
    CHECK_FALSE(still_running(data.trials[0]));
    const std::string md = render_report(data, {}).markdown;
    CHECK(md.find("1 trial: 0 succeeded, 1 did not (see [Failures](#failures)).") != std::string::npos);
    CHECK(md.find("| interrupted |") != std::string::npos);
    const auto campaigns = list_campaigns(*db, std::nullopt, std::time(nullptr));
    REQUIRE(campaigns.size() == 1);
    CHECK(campaigns[0].failed == 1);  // interrupted, as status says: not unfinished
    CHECK(campaigns[0].not_run == 0);
    CHECK(campaigns[0].state() == "failed");
  }
  f.store.db().exec("DELETE FROM attempts");
  CampaignLease mine(f.store.db(), "c", RunnerId::self(), std::time(nullptr));
  f.running_attempt(RunnerId::self());
  auto db = open_store_read_only(f.path);
  const ReportData data = load_report_data(*db, {campaign_by_id(*db, "c")});
  REQUIRE(data.trials.size() == 1);
  CHECK(still_running(data.trials[0]));
  const std::string md = render_report(data, {}).markdown;
  CHECK(md.find("1 trial: 0 succeeded, 1 still running.") != std::string::npos);
  CHECK(md.find("did not") == std::string::npos);
  CHECK(md.find("No trial has failed; 1 is still running.") != std::string::npos);
  const auto campaigns = list_campaigns(*db, std::nullopt, std::time(nullptr));
  CHECK(campaigns[0].running == 1);
  CHECK(campaigns[0].failed == 0);
  CHECK(campaigns[0].state() == "running");
}

TEST_CASE("status shows a running attempt whose job waits in the scheduler's queue as queued, and since when") {
  Fixture f("queued.sqlite");
  const fs::path run_dir = f.path.parent_path() / "queued_run";
  fs::create_directories(run_dir);
  CampaignLease mine(f.store.db(), "c", RunnerId::self(), kNow);
  f.running_attempt(RunnerId::self(), run_dir.string());
  auto db = open_store_read_only(f.path);
  REQUIRE(write_queue_note(run_dir / kQueueNoteName, {"PENDING Resources", std::time(nullptr) - 65}));
  auto rows = campaign_trials(*db, "c");
  REQUIRE(rows[0].queued);
  CHECK(rows[0].queued->rfind("PENDING Resources, 1m", 0) == 0);  // 65 s, or a little more by now
  CHECK(rows[0].state == std::string("running"));                 // the attempt is, as recorded
  CHECK(render_trial_table(rows).find("queued") != std::string::npos);

  remove_queue_note(run_dir / kQueueNoteName);  // the job has started
  CHECK_FALSE(campaign_trials(*db, "c")[0].queued);
  CHECK(render_trial_table(campaign_trials(*db, "c")).find("queued") == std::string::npos);
  fs::remove_all(run_dir);
}

TEST_CASE("the refusal does not wait for the write lock the holder keeps") {
  Fixture f("locked.sqlite");
  CampaignLease mine(f.store.db(), "c", RunnerId::self(), kNow);
  Database holder(f.path, Database::Mode::ReadWrite);
  Transaction registering(holder);  // e.g. the holder registering a large plan
  Database second(f.path, Database::Mode::ReadWrite);
  RunnerId other = RunnerId::self();
  other.pid = dead_pid();
  CHECK_THROWS_AS(CampaignLease(second, "c", other, kNow), RunnerError);
}
