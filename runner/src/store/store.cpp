#include "store/store.h"

#include <unistd.h>

#include <cmath>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "experiment/workload_params.h"
#include "runner_error.h"
#include "store/launch_rows.h"
#include "store/lease.h"
#include "store/schema.h"
#include "store/trial_json.h"

namespace mt {

std::string short_revision(const std::string& source_revision) {
  const auto plus = source_revision.find('+');
  const std::string commit = source_revision.substr(0, std::min<std::size_t>(plus, 12));
  return plus == std::string::npos ? commit : commit + "+" + source_revision.substr(plus + 1, 8);
}

namespace {

AttemptState parse_state(const std::string& s) {
  for (auto st : {AttemptState::Running, AttemptState::Succeeded, AttemptState::Failed, AttemptState::TimedOut,
                  AttemptState::Crashed, AttemptState::LaunchFailed, AttemptState::Interrupted}) {
    if (to_string(st) == s) return st;
  }
  throw SqliteError(fmt::format("unknown attempt state '{}' in database", s));
}

// Switching to WAL needs a moment alone with the file: a second runner opening a new database at
// the same time gets SQLITE_BUSY at once (no busy handler runs for it), so wait and try again.
void use_wal(Database& db) {
  for (int tries = 1;; ++tries) {
    try {
      db.exec("PRAGMA journal_mode=WAL");  // readers (status, query) never block the campaign
      return;
    } catch (const SqliteError& e) {
      if ((e.code() != SQLITE_BUSY && e.code() != SQLITE_LOCKED) || tries >= 1000) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace

const char* const kCampaignColumns =
    "c.id, c.experiment, c.experiment_file, c.source_revision, c.plan_hash, c.launcher, c.trial_count, c.created_at";

Campaign campaign_from_row(const Statement& s) {
  return {s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), int(s.integer(6)), s.text(7)};
}

std::string to_string(AttemptState state) {
  switch (state) {
    case AttemptState::Running: return "running";
    case AttemptState::Succeeded: return "succeeded";
    case AttemptState::Failed: return "failed";
    case AttemptState::TimedOut: return "timed_out";
    case AttemptState::Crashed: return "crashed";
    case AttemptState::LaunchFailed: return "launch_failed";
    case AttemptState::Interrupted: return "interrupted";
  }
  return "unknown";
}

// "2026-01-01T10:00:00", UTC, without the zone letter.
static std::string utc_to_the_second(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string utc_now() { return utc_to_the_second(std::time(nullptr)) + "Z"; }

std::string utc_now_ms() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
  return fmt::format("{}.{:03}Z", utc_to_the_second(std::time_t(ms / 1000)), ms % 1000);
}

// The path itself, after creating its directory: a first run may name a database in a new folder.
const std::filesystem::path& with_parent_created(const std::filesystem::path& file) {
  refuse_unless_file(file);
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) {
    throw RunnerError(kExitUsage,
                      fmt::format("cannot create the folder of the database {}: {}", file.string(), error.message()));
  }
  // SQLite creates the database, and beside it its write-ahead log (FILE-wal, FILE-shm), in this
  // folder: one it may not write to reads as "unable to open database file" or "attempt to write a
  // readonly database" otherwise, naming neither the folder nor why.
  const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
  auto writable = [](const std::filesystem::path& path) { return ::access(path.c_str(), W_OK) == 0; };
  const bool log_there = writable(file.string() + "-wal") && writable(file.string() + "-shm");
  const bool file_read_only = std::filesystem::exists(file, error) && !writable(file);  // said as such below
  if (::access(folder.c_str(), W_OK | X_OK) != 0 && !log_there && !file_read_only) {
    const int why = errno;
    throw RunnerError(kExitUsage, fmt::format("cannot write the database {}: its folder {} is not writable ({}), "
                                              "and SQLite keeps the database's log beside it",
                                              file.string(), folder.string(), std::strerror(why)));
  }
  return file;
}

Store::Store(const std::filesystem::path& file) : db_(with_parent_created(file), Database::Mode::ReadWrite) {
  if (db_.read_only()) {
    throw RunnerError(kExitUsage, fmt::format("{} is read-only, and this command writes to it", file.string()));
  }
  db_.wait_for_locks(kLockPatience);
  const int version = checked_schema_version(db_, file, /*empty_ok=*/true);  // before anything is written
  use_wal(db_);
  db_.exec("PRAGMA synchronous=NORMAL");
  db_.exec("PRAGMA foreign_keys=ON");
  // Only a database that needs it waits for the write lock (another runner may hold it a while).
  if (version < kSchemaVersion) migrate_to_latest(db_, file);
}

void Store::add_campaign_if_new(const Campaign& c, const CampaignMeasurement& m) {
  auto insert = db_.prepare(
      "INSERT OR IGNORE INTO campaigns (id, experiment, experiment_file, source_revision, "
      "plan_hash, launcher, trial_count, created_at, run_order, seed, measurement) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  insert.bind(1, c.id)
      .bind(2, c.experiment)
      .bind(3, c.experiment_file)
      .bind(4, c.source_revision)
      .bind(5, c.plan_hash)
      .bind(6, c.launcher)
      .bind(7, c.trial_count)
      .bind(8, c.created_at);
  if (!m.run_order.empty()) insert.bind(9, m.run_order);
  if (m.seed) insert.bind(10, std::int64_t(*m.seed));
  if (!m.measurement.empty()) insert.bind(11, m.measurement);
  insert.run();
}

void Store::record_questions(const std::string& campaign_id, const std::string& questions_json) {
  db_.prepare(
         "UPDATE campaigns SET measurement = json_set(COALESCE(measurement, '{}'), '$.questions', json(?)) "
         "WHERE id = ?")
      .bind(1, questions_json)
      .bind(2, campaign_id)
      .run();
}

void Store::record_reference_strategy(const std::string& campaign_id, const std::string& strategy) {
  db_.prepare(
         "UPDATE campaigns SET measurement = json_set(COALESCE(measurement, '{}'), '$.reference_strategy', ?) "
         "WHERE id = ?")
      .bind(1, strategy)
      .bind(2, campaign_id)
      .run();
}

std::int64_t Store::add_trial_if_new(const std::string& campaign_id, const Trial& t, int ordinal) {
  db_.prepare(
         "INSERT OR IGNORE INTO trials (campaign_id, identity, group_key, ordinal, study, workload, strategy, "
         "ranks, repeat_index, parameters, axes, spec) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
      .bind(1, campaign_id)
      .bind(2, t.identity)
      .bind(3, t.group_key)
      .bind(4, ordinal)
      .bind(5, t.study)
      .bind(6, t.stored_workload())
      .bind(7, t.param(kStrategyParam, param_default(t.workload, kStrategyParam)))
      .bind(8, t.ranks)
      .bind(9, t.repeat_index)
      .bind(10, recorded_parameters(t).dump())
      .bind(11, nlohmann::json(t.axis_names).dump())
      .bind(12, trial_to_json(t))
      .run();
  auto s = db_.prepare("SELECT id FROM trials WHERE campaign_id = ? AND identity = ?");
  s.bind(1, campaign_id).bind(2, t.identity);
  s.step();
  return s.integer(0);
}

std::vector<std::int64_t> Store::campaign_trial_rows(const std::string& campaign_id) {
  auto s = db_.prepare("SELECT id FROM trials WHERE campaign_id = ? ORDER BY ordinal");
  s.bind(1, campaign_id);
  std::vector<std::int64_t> out;
  while (s.step()) out.push_back(s.integer(0));
  return out;
}

Trial Store::trial_spec(std::int64_t trial_row) {
  auto s = db_.prepare("SELECT spec FROM trials WHERE id = ?");
  s.bind(1, trial_row);
  if (!s.step()) throw SqliteError(fmt::format("no trial with row {} in the database", trial_row));
  return trial_from_json(s.text(0));
}

int Store::interrupt_stale_attempts() {
  Transaction tx(db_);
  auto running = db_.prepare(
      "SELECT a.id, t.campaign_id, a.runner_host, a.runner_pid FROM attempts a "
      "JOIN trials t ON t.id = a.trial_id WHERE a.state = 'running'");
  std::vector<std::int64_t> stale;
  while (running.step()) {
    if (!attempt_runner_alive(db_, running.text(1), running.text(2), running.integer(3), std::time(nullptr))) {
      stale.push_back(running.integer(0));
    }
  }
  for (std::int64_t attempt : stale) {
    db_.prepare(
           "UPDATE attempts SET state = 'interrupted', finished_at = ?, error_reason = 'mtrun (pid ' || "
           "runner_pid || ' on ' || runner_host || ') stopped while this trial was running' WHERE id = ?")
        .bind(1, utc_now_ms())
        .bind(2, attempt)
        .run();
    db_.prepare(
           "UPDATE stages SET state = 'interrupted', finished_at = ?, met = 0, mismatch = 'mtrun stopped while "
           "this stage was running' WHERE attempt_id = ? AND state = 'running'")
        .bind(1, utc_now_ms())
        .bind(2, attempt)
        .run();
  }
  tx.commit();
  return int(stale.size());
}

std::optional<AttemptState> Store::latest_state(std::int64_t trial_row) {
  auto s = db_.prepare("SELECT state FROM attempts WHERE trial_id = ? ORDER BY attempt DESC LIMIT 1");
  s.bind(1, trial_row);
  if (!s.step()) return std::nullopt;
  return parse_state(s.text(0));
}

int Store::next_attempt_number(std::int64_t trial_row) {
  auto s = db_.prepare("SELECT coalesce(max(attempt), 0) + 1 FROM attempts WHERE trial_id = ?");
  s.bind(1, trial_row);
  s.step();
  return int(s.integer(0));
}

std::int64_t Store::begin_attempt(std::int64_t trial_row, int number, const std::string& command,
                                  const std::string& run_dir, const std::string& log_path,
                                  const std::optional<Provenance>& provenance, const BeforeLaunch& before) {
  Transaction tx(db_);
  db_.prepare(
         "INSERT INTO attempts (trial_id, attempt, state, command, run_dir, log_path, started_at, "
         "runner_host, runner_pid, settle_s, quiet_wait_s, quiet_found, quiet_where) "
         "VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, trial_row)
      .bind(2, number)
      .bind(3, command)
      .bind(4, run_dir)
      .bind(5, log_path)
      .bind(6, utc_now_ms())
      .bind(7, this_host())
      .bind(8, std::int64_t(::getpid()))
      .bind(9, before.settle_s)
      .bind(10, before.quiet_wait_s)
      .bind(11, before.quiet_found.empty() ? std::nullopt : std::optional<std::string>(before.quiet_found))
      .bind(12, before.quiet_where.empty() ? std::nullopt : std::optional<std::string>(before.quiet_where))
      .run();
  const std::int64_t attempt = db_.last_insert_id();
  if (provenance) record_provenance(attempt, *provenance);
  tx.commit();
  return attempt;
}

void Store::record_job_look(std::int64_t attempt_id, const BeforeLaunch& look) {
  db_.prepare("UPDATE attempts SET quiet_wait_s = ?, quiet_found = ?, quiet_where = ? WHERE id = ?")
      .bind(1, look.quiet_wait_s)
      .bind(2, look.quiet_found.empty() ? std::nullopt : std::optional<std::string>(look.quiet_found))
      .bind(3, look.quiet_where.empty() ? std::nullopt : std::optional<std::string>(look.quiet_where))
      .bind(4, attempt_id)
      .run();
}

void Store::finish_attempt(std::int64_t attempt_id, const AttemptOutcome& o,
                           const std::optional<Provenance>& provenance) {
  Transaction tx(db_);
  db_.prepare(
         "UPDATE attempts SET state = ?, exit_code = ?, signal = ?, error_rank = ?, error_step = ?, "
         "error_reason = ?, finished_at = ?, duration_s = ?, result_json = ? WHERE id = ?")
      .bind(1, to_string(o.state))
      .bind(2, o.exit_code)
      .bind(3, o.signal)
      .bind(4, o.error_rank)
      .bind(5, o.error_step)
      .bind(6, o.error_reason)
      .bind(7, utc_now_ms())
      .bind(8, o.duration_s)
      .bind(9, o.result_json)
      .bind(10, attempt_id)
      .run();
  auto metric = db_.prepare("INSERT OR REPLACE INTO metrics (attempt_id, name, value) VALUES (?,?,?)");
  for (const auto& m : o.metrics) {
    if (!std::isfinite(m.value)) continue;
    metric.bind(1, attempt_id).bind(2, m.name).bind(3, m.value).run();
    metric.reset();
  }
  auto step =
      db_.prepare("INSERT OR REPLACE INTO step_metrics (attempt_id, name, rank, step, value) VALUES (?,?,?,?,?)");
  for (const auto& v : o.steps) {
    if (!std::isfinite(v.value)) continue;
    step.bind(1, attempt_id).bind(2, v.name).bind(3, v.rank).bind(4, v.step).bind(5, v.value).run();
    step.reset();
  }
  auto row = db_.prepare("INSERT OR REPLACE INTO result_rows (attempt_id, row_index, data) VALUES (?,?,?)");
  for (std::size_t i = 0; i < o.rows.size(); ++i) {
    row.bind(1, attempt_id).bind(2, std::int64_t(i)).bind(3, o.rows[i]).run();
    row.reset();
  }
  auto file = db_.prepare("INSERT OR REPLACE INTO attempt_files (attempt_id, name, content) VALUES (?,?,?)");
  for (const auto& f : o.files) {
    file.bind(1, attempt_id).bind(2, f.name).bind_blob(3, f.content).run();
    file.reset();
  }
  insert_launches(db_, attempt_id, std::nullopt, o.launches);
  if (provenance) record_provenance(attempt_id, *provenance);
  tx.commit();
}

std::int64_t Store::begin_stage(std::int64_t attempt_id, const StageStart& st) {
  db_.prepare(
         "INSERT INTO stages (attempt_id, position, name, workload, expected, expectation, state, command, "
         "run_dir, log_path, started_at) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)")
      .bind(1, attempt_id)
      .bind(2, st.position)
      .bind(3, st.name)
      .bind(4, st.workload)
      .bind(5, st.expected)
      .bind(6, st.expectation)
      .bind(7, st.command)
      .bind(8, st.run_dir)
      .bind(9, st.log_path)
      .bind(10, utc_now_ms())
      .run();
  return db_.last_insert_id();
}

void Store::finish_stage(std::int64_t stage_id, const AttemptOutcome& o, const StageVerdict& v) {
  Transaction tx(db_);
  db_.prepare(
         "UPDATE stages SET state = ?, exit_code = ?, signal = ?, error_rank = ?, error_step = ?, "
         "error_reason = ?, observed = ?, met = ?, mismatch = ?, finished_at = ?, duration_s = ?, "
         "result_json = ? WHERE id = ?")
      .bind(1, to_string(o.state))
      .bind(2, o.exit_code)
      .bind(3, o.signal)
      .bind(4, o.error_rank)
      .bind(5, o.error_step)
      .bind(6, o.error_reason)
      .bind(7, v.observed)
      .bind(8, int(v.met))
      .bind(9, v.met ? std::optional<std::string>() : std::optional<std::string>(v.mismatch))
      .bind(10, utc_now_ms())
      .bind(11, o.duration_s)
      .bind(12, o.result_json)
      .bind(13, stage_id)
      .run();
  auto attempt = db_.prepare("SELECT attempt_id FROM stages WHERE id = ?");
  attempt.bind(1, stage_id);
  if (attempt.step()) insert_launches(db_, attempt.integer(0), stage_id, o.launches);
  tx.commit();
}

void Store::record_provenance(std::int64_t attempt_id, const Provenance& p) {
  const ProvenanceContext& c = p.context;
  db_.prepare(
         "INSERT OR REPLACE INTO provenance (attempt_id, source_commit, tree_dirty, diff_hash, build_revision, "
         "image_ref, image_id, base_image, bare_metal, engine_binary_hash, software_stack, hosts, command, "
         "complete, missing_fields, source_repository, build_tree_dirty) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
      .bind(1, attempt_id)
      .bind(2, c.source.commit)
      .bind(3, int(c.source.dirty))
      .bind(4, c.source.diff_hash)
      .bind(5, p.build_revision)
      .bind(6, c.image_ref)
      .bind(7, c.image_id)
      .bind(8, c.base_image)
      .bind(9, int(c.bare_metal()))
      .bind(10, c.engine_binary_hash)
      .bind(11, p.software_stack)
      .bind(12, p.hosts)
      .bind(13, p.command)
      .bind(14, int(p.complete))
      .bind(15, nlohmann::json(p.missing_fields).dump())
      .bind(16, c.source.repository)
      .bind(17, p.build_tree_dirty ? std::optional<int>(int(*p.build_tree_dirty)) : std::nullopt)
      .run();
}

}  // namespace mt
