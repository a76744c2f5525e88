#pragma once
// The results database: campaigns, trials, attempts and their metrics (schemas/store.sql).
// Every state change is its own transaction, so a runner killed at any moment leaves a
// consistent database behind.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "launch/provenance.h"
#include "store/before_launch.h"
#include "store/campaign_measurement.h"
#include "store/sqlite_db.h"
#include "experiment/trial.h"

namespace mt {

enum class AttemptState { Running, Succeeded, Failed, TimedOut, Crashed, LaunchFailed, Interrupted };
std::string to_string(AttemptState state);

struct Campaign {
  std::string id;
  std::string experiment;
  std::string experiment_file;
  std::string source_revision;
  std::string plan_hash;
  std::string launcher;  // JSON, see trial_json.h
  int trial_count = 0;
  std::string created_at;
};

// A source revision as tables show it: the commit's first 12 characters, and for a tree with
// uncommitted changes "+" and its diff hash's first 8 ("043a965cd7af+d191e195"), so that two
// campaigns of one commit with different changes do not read the same.
std::string short_revision(const std::string& source_revision);

struct MetricValue {
  std::string name;
  double value;
};

struct StepValue {
  std::string name;
  int rank;  // -1: already aggregated over ranks
  int step;
  double value;
};

// A file of the attempt's run directory kept in the database (attempt_files): `name` is its path
// relative to the run directory.
struct AttemptFile {
  std::string name;
  std::string content;
};

// One launch of a job whose study restarts failed jobs (`restart:`; schemas/store.sql, table
// launches): how it ended, how far it got and what its relaunch had to redo.
struct LaunchRecord {
  int launch = 1;  // 1-based
  AttemptState state = AttemptState::Failed;
  std::optional<int> exit_code, signal, error_rank, error_step;
  std::optional<std::string> error_reason;
  double duration_s = 0;
  std::optional<int> reached_step;       // steps completed (the engine's progress file)
  std::optional<int> resumed_from_step;  // where it began; none: from step 0
  std::optional<int> lost_steps;         // steps the next launch computed again
  std::optional<double> recovery_s;      // its last progress until the next was back at reached_step
  std::string log_path;
};

struct AttemptOutcome {
  AttemptState state = AttemptState::Failed;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<int> error_rank;
  std::optional<int> error_step;
  std::optional<std::string> error_reason;
  double duration_s = 0;
  std::optional<std::string> result_json;
  std::vector<MetricValue> metrics;
  std::vector<StepValue> steps;
  std::vector<std::string> rows;   // the result's `rows`, each a JSON object's text (result_rows)
  std::vector<AttemptFile> files;  // what reports link to (a profiled attempt's traces)
  // Under `restart:`, every launch of the job in order, the last being the one this outcome
  // describes (its duration_s counts them all); empty otherwise.
  std::vector<LaunchRecord> launches;
};

// A stage of a chain as it starts (schemas/store.sql, table stages).
struct StageStart {
  int position = 1;  // 1-based
  std::string name;
  std::string workload;
  std::string expected;     // the expectation in words
  std::string expectation;  // and as JSON
  std::string command;
  std::string run_dir;
  std::string log_path;
};

// Whether a finished stage met its expectation, and what was seen.
struct StageVerdict {
  bool met = false;
  std::string observed;  // in the words of StageExpectation::describe
  std::string mismatch;  // why it was not met; empty when it was
};

// Columns of `campaigns` in the order campaign_from_row reads them (table alias `c`), for queries
// over the store from elsewhere (reports open the database read-only, without a Store).
extern const char* const kCampaignColumns;
Campaign campaign_from_row(const Statement& row);

class Store {
 public:
  static constexpr int kSchemaVersion = 14;  // sections of schemas/store.sql (a test checks)
  // How long a writer waits for another connection's lock before it fails (Database::wait_for_locks).
  static constexpr std::chrono::seconds kLockPatience{600};

  // Opens for writing (creating the file and its directory if needed) and migrates to
  // kSchemaVersion. Throws RunnerError (usage), having changed nothing, for a read-only file, a
  // file that is not an mtrun database and one written by a newer mtrun; SqliteError otherwise.
  explicit Store(const std::filesystem::path& file);

  Database& db() { return db_; }

  // With how it runs (run order, seed, measurement rules; recorded on first sight only).
  void add_campaign_if_new(const Campaign& campaign, const CampaignMeasurement& measurement = {});
  // The questions the experiment file asks now (question_json.h), kept with the campaign in place
  // of those of an earlier run: they say how its numbers are judged, not how they are measured.
  void record_questions(const std::string& campaign_id, const std::string& questions_json);
  // The engine's reference strategy (experiment/workload_params.h) as the campaign ran, kept with
  // it (in `measurement`, under "reference_strategy") so a report compares strategies with the
  // one the engine named without asking an engine.
  void record_reference_strategy(const std::string& campaign_id, const std::string& strategy);

  // Row id of the trial, inserting it on first sight.
  std::int64_t add_trial_if_new(const std::string& campaign_id, const Trial& trial, int ordinal);

  // Rows of the campaign's trials in plan order.
  std::vector<std::int64_t> campaign_trial_rows(const std::string& campaign_id);
  // The trial of a row, rebuilt from what was stored.
  Trial trial_spec(std::int64_t trial_row);

  // Attempts left 'running' by a runner that no longer holds a live lease of their campaign become
  // 'interrupted' (lease.h). Returns how many. A live runner's attempts are left alone.
  int interrupt_stale_attempts();

  // State of the trial's latest attempt, or nullopt if it never ran.
  std::optional<AttemptState> latest_state(std::int64_t trial_row);

  // 1 for a trial never attempted, else one more than its latest attempt.
  int next_attempt_number(std::int64_t trial_row);
  // Records attempt `number` as running, with the provenance known before the launch (so an attempt
  // that never finishes has one) and what was done before it, in one transaction; returns its id.
  std::int64_t begin_attempt(std::int64_t trial_row, int number, const std::string& command, const std::string& run_dir,
                             const std::string& log_path, const std::optional<Provenance>& provenance,
                             const BeforeLaunch& before = {});
  // The look for a quiet machine taken inside the attempt's job (run/job_look.h), known only once
  // the job is done: its quiet_wait_s, quiet_found and quiet_where.
  void record_job_look(std::int64_t attempt_id, const BeforeLaunch& look);
  // Outcome, metrics, result rows, kept files and (when given, replacing the one recorded at the start)
  // provenance in one transaction. Non-finite metric values are not stored.
  void finish_attempt(std::int64_t attempt_id, const AttemptOutcome& outcome,
                      const std::optional<Provenance>& provenance);

  // A chain's stage within attempt `attempt_id`: recorded as running before its launch, finished
  // with its outcome and verdict after it.
  std::int64_t begin_stage(std::int64_t attempt_id, const StageStart& stage);
  void finish_stage(std::int64_t stage_id, const AttemptOutcome& outcome, const StageVerdict& verdict);

 private:
  void record_provenance(std::int64_t attempt_id, const Provenance& provenance);
  Database db_;
};

// Current time, UTC, ISO 8601 to the second: when a campaign or baseline was recorded.
std::string utc_now();
// Current time, UTC, ISO 8601 to the millisecond ("2026-01-01T10:00:00.250Z"): when an attempt or
// stage started and finished, so that trials shorter than a second still tell whether they ran at
// the same time. Text order is time order among stamps of one resolution.
std::string utc_now_ms();

}  // namespace mt
