#pragma once
// What reports read from the results database: the chosen campaigns and, for every trial, its
// latest attempt (for failures) and its latest succeeded attempt (for numbers). Read-only: a report
// never changes the database it describes.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/measurement_rules.h"
#include "experiment/question.h"
#include "store/sqlite_db.h"
#include "store/before_launch.h"
#include "store/campaign_lookup.h"
#include "store/launch_rows.h"
#include "store/stage_rows.h"
#include "store/store.h"

namespace mt {

// One row of the provenance table (schemas/store.sql), as stored.
struct ProvenanceRow {
  std::string source_commit;
  std::optional<bool> tree_dirty;
  std::string diff_hash;
  std::string build_revision;
  std::optional<bool> build_tree_dirty;  // unset: not recorded (before schema version 8) or not said
  std::string image_ref;
  std::string image_id;
  std::string base_image;
  bool bare_metal = false;
  std::string engine_binary_hash;
  nlohmann::ordered_json software_stack = nlohmann::ordered_json::object();
  bool complete = false;
  std::vector<std::string> missing_fields;
};

struct ReportTrial {
  std::string campaign_id;
  std::string campaign_revision;  // the campaign's source revision
  std::string identity;
  std::string group_key;
  int ordinal = 0;
  std::string study;
  std::string workload;
  std::string strategy;
  int ranks = 1;
  int repeat_index = 0;
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  std::vector<std::string> axes;
  // A `command` trial's metrics whose better direction its experiment declared: name → "higher"/"lower".
  std::map<std::string, std::string> declared_better;

  // Latest attempt: what a failure report shows. No state: never attempted.
  std::optional<std::string> latest_state;
  int attempts = 0;
  std::optional<int> error_rank;
  std::optional<int> error_step;
  std::string error_reason;
  std::string log_path;
  std::vector<StageRow> stages;     // a chain's: the stages its latest attempt ran
  std::vector<LaunchRow> launches;  // under `restart:`: every launch of its latest attempt's jobs

  // Latest succeeded attempt: where the numbers come from.
  std::optional<int> succeeded_attempt;
  std::int64_t succeeded_attempt_id = 0;  // its row in `attempts`
  std::string succeeded_started_at;       // when it started (ISO 8601 UTC: sorts as text)
  std::vector<std::string> files;         // names of the files kept with it (attempt_files), sorted
  std::string command;                    // as the runner recorded and launched it
  std::map<std::string, double> metrics;
  nlohmann::json result;             // its result JSON; null when absent or unreadable
  std::vector<nlohmann::json> rows;  // its result rows (result_rows), in order; none before schema version 4
  std::optional<ProvenanceRow> provenance;
  // The machine during that attempt (attempt_conditions): "quiet", "disturbed", or "" when not
  // recorded (databases before schema version 6); the reasons when disturbed.
  std::string verdict;
  std::vector<std::string> disturbances;
  std::optional<double> calibration_gflops;
  // Of its ranks, how many ran on mtrun's host; nullopt where not recorded (schema version 12).
  std::optional<int> job_ranks_here;
  // What mtrun did just before launching that attempt (settled, looked for a quiet machine).
  BeforeLaunch before;

  bool disturbed() const { return verdict == "disturbed"; }
  bool succeeded() const { return succeeded_attempt.has_value(); }
  // A parameter's value as text, or `fallback`.
  std::string param(const std::string& name, const std::string& fallback = "") const;
  // A numeric metric of the succeeded attempt.
  std::optional<double> metric(const std::string& name) const;
};

// A file kept with an attempt (attempt_files) that a saved report writes into its folder.
struct ReportFile {
  std::int64_t attempt_id = 0;
  std::string name;  // as stored: "profile/rank_00000.trace.json"
  std::string path;  // relative to the report's folder: "traces/0123456789ab/rank_00000.trace.json"
};

struct ReportData {
  std::vector<Campaign> campaigns;  // oldest first
  std::vector<ReportTrial> trials;  // by campaign, then plan order
  // Run order and adaptive repeats (disturbance_summary.h), settling and quiet looks before the launches
  // (before_launch_notes.h), trials in flight together (overlap_notes.h); "" when none was recorded.
  std::string run_notes;
  bool keep_disturbed = false;  // a campaign was run with conditions: {keep_disturbed: true}
  // The conditions each campaign was run with (its `measurement`), by campaign id; absent where none
  // was recorded. Its settle_s and wait_quiet_s say what the experiment itself asked for before each trial.
  std::map<std::string, ConditionsThresholds> campaign_conditions;
  // The questions the latest campaign that kept any was asked (its `measurement`); nullopt when
  // none did (run before questions were kept). Empty: its experiment declared none.
  std::optional<std::vector<Question>> questions;
  // The strategy the others are compared with: the engine's reference as the latest campaign that
  // kept one recorded it (Store::record_reference_strategy).
  std::string reference_strategy;
};

// Opens an existing results database read-only; refuses a missing file, a file that is not an mtrun
// database and one written by a newer mtrun (RunnerError, exit 2).
std::unique_ptr<Database> open_results(const std::filesystem::path& file);

ReportData load_report_data(Database& db, const std::vector<Campaign>& campaigns);

// The content of a file kept with an attempt; throws RunnerError when there is none.
std::string read_attempt_file(Database& db, std::int64_t attempt_id, const std::string& name);

}  // namespace mt
