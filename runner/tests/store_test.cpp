#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "engine_fixture.h"
#include "experiment/workload_params.h"
#include "runner_error.h"
#include "store/baselines.h"
#include "store/before_launch.h"
#include "store/conditions_rows.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_reader.h"

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

TEST_CASE("attempts and stages are stamped to the millisecond, so sub-second trials still order in time") {
  auto path = fresh_db("stamps.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  auto row = store.add_trial_if_new("c1", sample_trial(0), 0);
  auto attempt = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt);
  auto stage = store.begin_stage(attempt, {1, "a", "train", "succeeds", "{}", "cmd", "/run/a", "/run/a/log.txt"});
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  store.finish_stage(stage, ok, {true, "succeeded", ""});
  store.finish_attempt(attempt, ok, std::nullopt);
  // "2026-01-01T10:00:00.250Z": 24 characters, SQLite reads it as a time with its fraction.
  const char* shape =
      "SELECT count(*) FROM {} WHERE length({}) = 24 AND substr({}, 20, 1) = '.' AND substr({}, 24) = 'Z' "
      "AND julianday({}) IS NOT NULL";
  for (const char* table : {"attempts", "stages"}) {
    for (const char* column : {"started_at", "finished_at"}) {
      CAPTURE(table);
      CAPTURE(column);
      auto s = store.db().prepare(fmt::format(fmt::runtime(shape), table, column, column, column, column));
      REQUIRE(s.step());
      CHECK(s.integer(0) == 1);
    }
  }
}

TEST_CASE("the training view: engine defaults from the result, the attempt's id, model state counted once") {
  auto path = fresh_db("training_view.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  auto row = store.add_trial_if_new("c1", sample_trial(0), 0);  // sets neither precision nor sync mode
  auto attempt = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt);
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  ok.result_json = R"({"precision": "fp32", "gradient_sync_mode": "every", "gradient_accumulation_steps": 1})";
  // DDP: its full-parameter peak is the parameters themselves, which a sum of memory.* counts twice.
  ok.metrics = {{"memory.parameter_bytes", 1000},       {"memory.peak_gradient_bytes", 1000},
                {"memory.gradient_bytes", 900},         {"memory.optimizer_state_bytes", 2000},
                {"memory.gathered_parameter_bytes", 0}, {"memory.peak_full_parameter_bytes", 1000}};
  store.finish_attempt(attempt, ok, std::nullopt);

  auto s = store.db().prepare(
      "SELECT precision, gradient_sync_mode, grad_accum_steps, attempt_id, gradient_bytes, model_state_bytes "
      "FROM training");
  REQUIRE(s.step());
  CHECK(s.text(0) == "fp32");
  CHECK(s.text(1) == "every");
  CHECK(s.integer(2) == 1);
  CHECK(s.integer(3) == attempt);
  CHECK(s.real(4) == doctest::Approx(1000));  // the peak, not the steady gradient buffer
  CHECK(s.real(5) == doctest::Approx(4000));  // parameters + peak gradients + optimizer state + gathered
}

// Everything about the file that opening it could change, to show it was left alone.
std::string fingerprint(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  return std::to_string(bytes.size()) + ":" + std::to_string(std::hash<std::string>()(bytes)) +
         (fs::exists(path.string() + "-wal") ? "+wal" : "");
}

std::string journal_mode(const fs::path& path) {
  Database db(path, Database::Mode::ReadOnly);
  auto s = db.prepare("PRAGMA journal_mode");
  s.step();
  return s.text(0);
}

TEST_CASE("a database from a newer mtrun is refused before anything is written to it") {
  auto path = fresh_db("newer.sqlite");
  {
    Database db(path, Database::Mode::ReadWrite);
    db.exec("CREATE TABLE campaigns (x); PRAGMA user_version = 99");
  }
  const std::string before = fingerprint(path);
  const std::string message =
      path.string() + fmt::format(
                          " has schema version 99, newer than this mtrun understands ({}); use a newer "
                          "mtrun or another --db",
                          Store::kSchemaVersion);
  CHECK_THROWS_WITH_AS(Store{path}, message.c_str(), RunnerError);
  CHECK_THROWS_WITH_AS(open_store_read_only(path), message.c_str(), RunnerError);
  CHECK(fingerprint(path) == before);
  CHECK(journal_mode(path) == "delete");  // not switched to WAL on the way to the refusal
}

TEST_CASE("a file that is not an mtrun database is refused as such, and left alone") {
  auto other = fresh_db("other.sqlite");
  {
    Database db(other, Database::Mode::ReadWrite);
    db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
  }
  const std::string before = fingerprint(other);
  const std::string not_mtrun = other.string() + " is not an mtrun results database";
  CHECK_THROWS_WITH_AS(Store{other}, not_mtrun.c_str(), RunnerError);
  CHECK_THROWS_WITH_AS(open_store_read_only(other), not_mtrun.c_str(), RunnerError);
  CHECK(fingerprint(other) == before);
  CHECK(journal_mode(other) == "delete");

  auto text = fresh_db("text.sqlite");
  std::ofstream(text) << "just some text, long enough to be mistaken for nothing in particular\n";
  const std::string not_sqlite = text.string() + " is not an SQLite database";
  CHECK_THROWS_WITH_AS(Store{text}, not_sqlite.c_str(), RunnerError);
  CHECK_THROWS_WITH_AS(open_store_read_only(text), not_sqlite.c_str(), RunnerError);

  auto missing = fresh_db("missing.sqlite");
  const std::string none = "no database at " + missing.string() + " (run an experiment first, or pass --db)";
  CHECK_THROWS_WITH_AS(open_store_read_only(missing), none.c_str(), RunnerError);
  CHECK_FALSE(fs::exists(missing));
}

TEST_CASE("an older database is read as it is and migrated forward only by a writer") {
  auto path = fresh_db("v1.sqlite");
  {
    Database db(path, Database::Mode::ReadWrite);
    db.exec(schema_sections()[0]);
    db.exec("PRAGMA user_version = 1");
  }
  const std::string before = fingerprint(path);
  CHECK(open_store_read_only(path)->user_version() == 1);
  CHECK_FALSE(open_store_read_only(path)->has_table("leases"));
  CHECK(fingerprint(path) == before);
  CHECK(journal_mode(path) == "delete");

  Store store(path);
  CHECK(store.db().user_version() == Store::kSchemaVersion);
  CHECK(store.db().has_table("stages"));
  CHECK(store.db().has_table("leases"));
  CHECK(store.db().has_table("result_rows"));
  CHECK(store.db().has_table("attempt_files"));
  CHECK(journal_mode(path) == "wal");
}

TEST_CASE("the schema file has one section per version") {
  CHECK(latest_schema_version() == Store::kSchemaVersion);
  CHECK(schema_sections()[1].rfind("-- @version 2\n", 0) == 0);
  CHECK(schema_sections()[2].rfind("-- @version 3\n", 0) == 0);
  CHECK(schema_sections()[3].rfind("-- @version 4\n", 0) == 0);
  CHECK(schema_sections()[4].rfind("-- @version 5\n", 0) == 0);
}

TEST_CASE("result rows are stored in order and read as collective measurements by the comm_rows view") {
  auto path = fresh_db("rows.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  Trial t = sample_trial(0);
  t.workload = "comm";
  auto row = store.add_trial_if_new("c1", t, 0);
  auto attempt = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt);
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  ok.rows = {R"({"operation":"all_reduce","bytes":1024,"in_place":true,"split":"","busbw_gbps":1.5,"wrong_values":0})",
             R"({"operation":"all_reduce","bytes":1024,"in_place":false,"unsupported":true,"reason":"in place only"})",
             R"({"note":"not a measurement"})"};
  store.finish_attempt(attempt, ok, std::nullopt);
  auto s = store.db().prepare(
      "SELECT row_index, operation, bytes, in_place, busbw_gbps, unsupported, study, ranks FROM comm_rows ORDER BY "
      "row_index");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 0);
  CHECK(s.text(1) == "all_reduce");
  CHECK(s.integer(2) == 1024);
  CHECK(s.integer(3) == 1);
  CHECK(s.real(4) == doctest::Approx(1.5));
  CHECK(s.integer(5) == 0);
  CHECK(s.text(6) == "s");
  CHECK(s.integer(7) == 2);
  REQUIRE(s.step());
  CHECK(s.integer(0) == 1);
  CHECK(s.is_null(4));
  CHECK(s.integer(5) == 1);
  CHECK_FALSE(s.step());  // a row without an operation is kept in result_rows but is not a measurement
  auto all = store.db().prepare("SELECT count(*) FROM result_rows");
  all.step();
  CHECK(all.integer(0) == 3);
}

TEST_CASE("runners opening a new database at the same moment create its schema once") {
  for (int round = 0; round < 10; ++round) {
    auto path = fresh_db("race.sqlite");
    fs::remove(path.string() + "-wal");
    fs::remove(path.string() + "-shm");
    std::vector<std::string> errors(4);
    std::vector<std::thread> runners;
    for (size_t i = 0; i < errors.size(); ++i) {
      runners.emplace_back([&, i] {
        try {
          Store store(path);
          store.add_campaign_if_new({"c", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (auto& t : runners) t.join();
    for (const auto& e : errors) CHECK(e == "");
    CHECK(Store(path).db().user_version() == Store::kSchemaVersion);
  }
}

TEST_CASE("a WAL database is read without locking where its index cannot be created") {
  auto path = fresh_db("odd?name%23.sqlite");  // characters a file: URI must escape
  {
    Store store(path);
    store.add_campaign_if_new({"c", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  }
  REQUIRE(journal_mode(path) == "wal");
  Database db(path, Database::Mode::Immutable);
  auto s = db.prepare("SELECT count(*) FROM campaigns");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 1);
  CHECK(db.read_only());
}

TEST_CASE("baselines: set, moved by setting again, listed with their experiment, deleted; plain names only") {
  auto path = fresh_db("baselines.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev1", "plan", "{}", 0, "2024-05-01T00:00:00Z"});
  store.add_campaign_if_new({"c2", "exp", "/x.yaml", "rev2", "plan", "{}", 0, "2024-05-02T00:00:00Z"});
  CHECK(list_baselines(store.db()).empty());
  set_baseline(store.db(), "main", "c1");
  set_baseline(store.db(), "main", "c2");
  set_baseline(store.db(), "v1.0", "c1");
  auto all = list_baselines(store.db());
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "main");
  CHECK(all[0].campaign_id == "c2");
  CHECK(all[0].experiment == "exp");
  CHECK(find_baseline(store.db(), "v1.0").campaign_id == "c1");
  CHECK_THROWS_WITH_AS(set_baseline(store.db(), "my baseline", "c1"),
                       "baseline name 'my baseline' must be a plain word: letters, digits, '.', '_' or '-', at most "
                       "100 characters",
                       RunnerError);
  delete_baseline(store.db(), "main");
  CHECK_THROWS_WITH_AS(find_baseline(store.db(), "main"), "no baseline 'main' in the database (there are: v1.0)",
                       RunnerError);
  CHECK_THROWS_AS(delete_baseline(store.db(), "main"), RunnerError);
}

TEST_CASE("a training trial that does not set its strategy is stored with the engine's default one") {
  // An engine whose reference (default) strategy is not ddp: the runner names none of its own.
  WorkloadSpec train = *find_workload("train");
  struct Restore {
    ~Restore() { register_engine_fixture(); }
  } restore;
  WorkloadSpec other = train;
  for (auto& p : other.params) {
    if (p.name == kStrategyParam) p.default_value = "zero1";
  }
  register_engine_workload(other);
  CHECK(reference_strategy() == "zero1");
  CHECK(param_default("train", kStrategyParam) == "zero1");
  CHECK(param_default("command", kStrategyParam).empty());

  auto path = fresh_db("default_strategy.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  Trial unset = sample_trial(0);
  unset.params = {{"ranks", "2"}};
  Trial set = sample_trial(1);
  Trial command = sample_trial(2);
  command.workload = "command";
  command.params = {{"ranks", "2"}};
  store.add_trial_if_new("c1", unset, 0);
  store.add_trial_if_new("c1", set, 1);
  store.add_trial_if_new("c1", command, 2);
  auto s = store.db().prepare("SELECT strategy FROM trials ORDER BY ordinal");
  REQUIRE(s.step());
  CHECK(s.text(0) == "zero1");
  REQUIRE(s.step());
  CHECK(s.text(0) == "ddp");
  REQUIRE(s.step());
  CHECK(s.text(0).empty());
}

TEST_CASE("what mtrun did before a launch is stored with the attempt, shown by the conditions view, and read back") {
  auto path = fresh_db("before_launch.sqlite");
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", 1, utc_now()});
  auto row = store.add_trial_if_new("c1", sample_trial(0), 0);
  BeforeLaunch settled;
  settled.settle_s = 10.02;
  settled.quiet_wait_s = 3.1;
  settled.quiet_found = "quiet";
  const auto first = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt, settled);
  const auto second = store.begin_attempt(row, 2, "mpirun ...", "/run2", "/run2/log.txt", std::nullopt);

  const BeforeLaunch read = read_before_launch(store.db(), first);
  REQUIRE(read.settle_s);
  CHECK(*read.settle_s == 10.02);
  REQUIRE(read.quiet_wait_s);
  CHECK(*read.quiet_wait_s == 3.1);
  CHECK(read.quiet_found == "quiet");
  CHECK(describe_before_launch(read) == "settled 10.0 s; looked for a quiet machine for 3.1 s: quiet");
  CHECK(read.quiet_where.empty());  // not said: not recorded

  BeforeLaunch on_nodes;
  on_nodes.quiet_wait_s = 1.1;
  on_nodes.quiet_found = "busy";
  on_nodes.quiet_where = "allocation_nodes";
  const auto third = store.begin_attempt(row, 3, "srun ...", "/run3", "/run3/log.txt", std::nullopt, on_nodes);
  CHECK(read_before_launch(store.db(), third).quiet_where == "allocation_nodes");
  CHECK(describe_before_launch(read_before_launch(store.db(), third)) ==
        "looked for a quiet machine on the allocation's nodes for 1.1 s: still busy");
  // A look the job took itself is known once it is done: recorded then over what was recorded before.
  BeforeLaunch in_job;
  in_job.quiet_wait_s = 4.2;
  in_job.quiet_found = "quiet";
  in_job.quiet_where = "job_nodes";
  store.record_job_look(second, in_job);
  CHECK(describe_before_launch(read_before_launch(store.db(), second)) ==
        "looked for a quiet machine on the job's own nodes for 4.2 s: quiet");
  store.record_job_look(second, {});
  BeforeLaunch elsewhere = on_nodes;
  elsewhere.quiet_where = "the moon";  // the schema names every place a look can be taken
  CHECK_THROWS(store.begin_attempt(row, 4, "srun ...", "/run4", "/run4/log.txt", std::nullopt, elsewhere));

  const BeforeLaunch back_to_back = read_before_launch(store.db(), second);  // nothing done: nothing stored
  CHECK_FALSE(back_to_back.anything());
  CHECK(back_to_back.quiet_found.empty());
  CHECK(describe_before_launch(back_to_back).empty());

  store.db().exec(
      "INSERT INTO attempt_conditions (attempt_id, wall_s, cpus, busy_cpu_s, job_cpu_s, runner_cpu_s, "
      "foreign_cpu_pct, samples, verdict, reasons) VALUES (" +
      std::to_string(first) + ", 1, 2, 1, 1, 0, 0, '[]', 'quiet', '[]')");
  auto s = store.db().prepare("SELECT settle_s, quiet_wait_s, quiet_found FROM conditions");
  REQUIRE(s.step());
  CHECK(s.real(0) == 10.02);
  CHECK(s.real(1) == 3.1);
  CHECK(s.text(2) == "quiet");
  CHECK_THROWS_AS(store.db().exec("UPDATE attempts SET quiet_found = 'maybe' WHERE id = " + std::to_string(second)),
                  SqliteError);
}

namespace {
// A database of the first `version` schema sections holding one campaign, one trial and its
// succeeded attempt 7, as an older mtrun left it.
fs::path older_database(const std::string& name, int version) {
  auto path = fresh_db(name);
  Database db(path, Database::Mode::ReadWrite);
  for (int k = 0; k < version; ++k) db.exec(schema_sections()[size_t(k)]);
  db.exec(fmt::format("PRAGMA user_version = {}", version));
  db.exec(
      "INSERT INTO campaigns (id, experiment, experiment_file, source_revision, plan_hash, launcher, trial_count, "
      "created_at) VALUES ('c', 'e', '/x.yaml', 'r', 'p', '{}', 1, '2026-01-01T00:00:00Z')");
  db.exec(
      "INSERT INTO trials (id, campaign_id, identity, group_key, ordinal, study, workload, ranks, repeat_index, "
      "parameters, axes, spec) VALUES (1, 'c', 'i', 'g', 0, 's', 'train', 1, 0, '{}', '[]', '{}')");
  db.exec(
      "INSERT INTO attempts (id, trial_id, attempt, state, command, run_dir, log_path, started_at, runner_host, "
      "runner_pid) VALUES (7, 1, 1, 'succeeded', 'x', '/r', '/r/log', '2026-01-01T00:00:01Z', 'h', 1)");
  return path;
}
}  // namespace

TEST_CASE("a database of schema version 10 gains the before-launch columns and keeps its attempts") {
  auto path = older_database("v10.sqlite", 10);
  CHECK_FALSE(read_before_launch(*open_store_read_only(path), 7).anything());  // read as it is: no such columns
  Store store(path);
  CHECK(store.db().user_version() == Store::kSchemaVersion);
  CHECK_FALSE(read_before_launch(store.db(), 7).anything());  // recorded before: nothing claimed
  auto s = store.db().prepare("SELECT count(*) FROM pragma_table_info('conditions') WHERE name = 'settle_s'");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 1);
}

TEST_CASE("a database of schema version 12 gains where the looks were taken, unknown for its attempts") {
  auto path = older_database("v12.sqlite", 12);
  Database(path, Database::Mode::ReadWrite).exec("UPDATE attempts SET quiet_wait_s = 1.0, quiet_found = 'quiet'");
  CHECK(read_before_launch(*open_store_read_only(path), 7).quiet_found == "quiet");  // read as it is
  CHECK(read_before_launch(*open_store_read_only(path), 7).quiet_where.empty());
  Store store(path);
  CHECK(store.db().user_version() == Store::kSchemaVersion);
  const BeforeLaunch read = read_before_launch(store.db(), 7);
  CHECK(read.quiet_found == "quiet");
  CHECK(read.quiet_where.empty());  // recorded before: not known
  CHECK(describe_before_launch(read) == "looked for a quiet machine for 1.0 s: quiet");
  auto s = store.db().prepare("SELECT count(*) FROM pragma_table_info('conditions') WHERE name = 'quiet_where'");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 1);
}

TEST_CASE("a database of schema version 11 gains where the job's ranks ran, unknown for its attempts") {
  auto path = older_database("v11.sqlite", 11);
  Database(path, Database::Mode::ReadWrite)
      .exec(
          "INSERT INTO attempt_conditions (attempt_id, wall_s, cpus, busy_cpu_s, job_cpu_s, runner_cpu_s, "
          "foreign_cpu_pct, samples, verdict, reasons) VALUES (7, 1, 2, 1, 1, 0, 0, '[]', 'quiet', '[]')");
  {
    auto before = open_store_read_only(path);  // read as it is: no such column yet
    REQUIRE(read_verdict(*before, 7));
    CHECK_FALSE(read_verdict(*before, 7)->job_ranks_here);
  }
  Store store(path);
  CHECK(store.db().user_version() == Store::kSchemaVersion);
  CHECK(read_verdict(store.db(), 7)->verdict == "quiet");
  CHECK_FALSE(read_verdict(store.db(), 7)->job_ranks_here);  // recorded before: not known
  auto s = store.db().prepare("SELECT count(*) FROM conditions WHERE job_ranks_here IS NULL AND attempt_id = 7");
  REQUIRE(s.step());
  CHECK(s.integer(0) == 1);
}

TEST_CASE("short revisions: a commit's first 12 characters; uncommitted changes add their diff hash's first 8") {
  CHECK(short_revision("043a965cd7af91a8056d4d8d3e4b9ae9106e934a") == "043a965cd7af");
  CHECK(short_revision("043a965cd7af91a8056d4d8d3e4b9ae9106e934a+d191e195502d9195") == "043a965cd7af+d191e195");
  CHECK(short_revision("043a965cd7af91a8056d4d8d3e4b9ae9106e934a+d191e195502d9196") !=
        short_revision("043a965cd7af91a8056d4d8d3e4b9ae9106e934a+a191e195502d9195"));
  CHECK(short_revision("") == "");
  CHECK(short_revision("unknown") == "unknown");
}
