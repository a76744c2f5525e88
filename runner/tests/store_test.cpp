#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "store/store.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {
fs::path fresh_db(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("mtrun_store_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path db = dir / name;
  fs::remove(db);
  return db;
}

Trial sample_trial(int repeat) {
  Trial t;
  t.study = "s";
  t.workload = "train";
  t.repeat_index = repeat;
  t.ranks = 2;
  t.params = {{"ranks", "2"}, {"strategy", "ddp"}};
  t.axis_names = {"ranks"};
  t.identity = "id" + std::to_string(repeat);
  t.group_key = "g";
  return t;
}
}  // namespace

TEST_CASE("a new store has the schema version set") {
  auto path = fresh_db("new.sqlite");
  Store store(path);
  CHECK(store.db().user_version() == Store::kSchemaVersion);
}

TEST_CASE("attempts are numbered per trial and their outcome and metrics are stored") {
  auto path = fresh_db("attempts.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  auto row = store.add_trial_if_new("c1", sample_trial(0), 0);
  CHECK(store.add_trial_if_new("c1", sample_trial(0), 0) == row);  // idempotent
  CHECK_FALSE(store.latest_state(row).has_value());

  CHECK(store.next_attempt_number(row) == 1);
  auto first = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt);
  CHECK(store.latest_state(row) == AttemptState::Running);
  AttemptOutcome failed;
  failed.state = AttemptState::Failed;
  failed.exit_code = 2;
  store.finish_attempt(first, failed, std::nullopt);
  CHECK(store.latest_state(row) == AttemptState::Failed);

  CHECK(store.next_attempt_number(row) == 2);
  auto second = store.begin_attempt(row, 2, "mpirun ...", "/run2", "/run2/log.txt", std::nullopt);
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  ok.exit_code = 0;
  ok.metrics = {{"tokens_per_sec", 1234.5}, {"step_time_ms", 10}};
  ok.steps = {{"step_time_ms", 0, 0, 9.5}, {"step_time_ms", 1, 0, 10.5}};
  store.finish_attempt(second, ok, std::nullopt);
  CHECK(store.latest_state(row) == AttemptState::Succeeded);

  auto s = store.db().prepare("SELECT state, tokens_per_sec, attempt FROM training");
  REQUIRE(s.step());
  CHECK(s.text(0) == "succeeded");
  CHECK(s.real(1) == doctest::Approx(1234.5));
  CHECK(s.integer(2) == 2);
  CHECK_FALSE(s.step());
  auto count = store.db().prepare("SELECT count(*) FROM attempts");
  count.step();
  CHECK(count.integer(0) == 2);  // the failed attempt is kept
}

TEST_CASE("a database from a newer mtrun is refused") {
  auto path = fresh_db("newer.sqlite");
  {
    Database db(path, Database::Mode::ReadWrite);
    db.exec("PRAGMA user_version = 99");
  }
  CHECK_THROWS_WITH_AS(Store{path},
                       "database schema version 99 is newer than this mtrun understands (1); use a newer mtrun or another --db",
                       SqliteError);
}
