#include "report/model/results_source.h"

#include <ctime>

#include <fmt/format.h>

#include "runner_error.h"
#include "experiment/measurement_rules.h"
#include "report/model/before_launch_notes.h"
#include "report/model/elsewhere_notes.h"
#include "report/model/disturbance_summary.h"
#include "report/model/overlap_notes.h"
#include "store/campaign_measurement.h"
#include "store/question_json.h"
#include "store/conditions_rows.h"
#include "store/lease.h"
#include "store/store_reader.h"
#include "store/trial_json.h"

namespace mt {
namespace {

std::optional<int> optional_int(Statement& s, int column) {
  if (s.is_null(column)) return std::nullopt;
  return int(s.integer(column));
}

std::vector<std::string> string_array(const std::string& text) {
  std::vector<std::string> out;
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_array()) return out;
  for (const auto& v : doc) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// The directions a trial's spec (trial_json.h) declares for its metric rules; none for other workloads.
std::map<std::string, std::string> declared_directions(const std::string& spec) {
  std::map<std::string, std::string> out;
  auto doc = nlohmann::json::parse(spec, nullptr, false);
  if (!doc.is_object() || !doc.contains("metrics") || !doc["metrics"].is_array()) return out;
  for (const auto& rule : doc["metrics"]) {
    if (!rule.is_object() || !rule.contains("name") || !rule.contains("better")) continue;
    if (rule["name"].is_string() && rule["better"].is_string()) out[rule["name"]] = rule["better"];
  }
  return out;
}

// The trials of one campaign with their latest attempt and latest succeeded attempt (ids only).
struct TrialRowIds {
  ReportTrial trial;
  std::optional<std::int64_t> succeeded_id;
  std::optional<std::int64_t> latest_id;
};

// An attempt recorded as running runs only while its runner lives (lease.h); one whose runner is
// gone is interrupted, as `mtrun status` says and the next run records.
void settle_running(Database& db, ReportTrial& t, const std::string& runner_host, std::int64_t runner_pid) {
  if (attempt_runner_alive(db, t.campaign_id, runner_host, runner_pid, std::time(nullptr))) return;
  t.latest_state = "interrupted";
  t.error_reason = gone_runner_reason(runner_host, runner_pid);
}

std::vector<TrialRowIds> read_trials(Database& db, const Campaign& campaign) {
  auto s = db.prepare(R"sql(
    SELECT t.identity, t.group_key, t.ordinal, t.study, t.workload, coalesce(t.strategy, ''), t.ranks,
           t.repeat_index, t.parameters, t.axes,
           a.state, (SELECT count(*) FROM attempts x WHERE x.trial_id = t.id),
           a.error_rank, a.error_step, coalesce(a.error_reason, ''), coalesce(a.log_path, ''),
           ok.id, ok.attempt, coalesce(ok.command, ''), a.id, t.spec, coalesce(ok.started_at, ''),
           coalesce(a.runner_host, ''), coalesce(a.runner_pid, 0)
    FROM trials t
    LEFT JOIN latest_attempts a ON a.trial_id = t.id
    LEFT JOIN attempts ok ON ok.id = (SELECT y.id FROM attempts y WHERE y.trial_id = t.id
                                      AND y.state = 'succeeded' ORDER BY y.attempt DESC LIMIT 1)
    WHERE t.campaign_id = ? ORDER BY t.ordinal, t.identity)sql");
  s.bind(1, campaign.id);
  std::vector<TrialRowIds> rows;
  while (s.step()) {
    TrialRowIds row;
    ReportTrial& t = row.trial;
    t.campaign_id = campaign.id;
    t.campaign_revision = campaign.source_revision;
    t.identity = s.text(0);
    t.group_key = s.text(1);
    t.ordinal = int(s.integer(2));
    t.study = s.text(3);
    t.workload = s.text(4);
    t.strategy = s.text(5);
    t.ranks = int(s.integer(6));
    t.repeat_index = int(s.integer(7));
    t.parameters = stored_parameters(s.text(8), s.text(20));  // with env.NAME, also for older rows
    t.axes = string_array(s.text(9));
    if (!s.is_null(10)) t.latest_state = s.text(10);
    if (t.latest_state == std::string("running")) settle_running(db, t, s.text(22), s.integer(23));
    t.attempts = int(s.integer(11));
    t.error_rank = optional_int(s, 12);
    t.error_step = optional_int(s, 13);
    t.error_reason = s.text(14);
    t.log_path = s.text(15);
    if (!s.is_null(16)) {
      row.succeeded_id = s.integer(16);
      t.succeeded_attempt = int(s.integer(17));
      t.command = s.text(18);
      t.succeeded_started_at = s.text(21);
    }
    if (!s.is_null(19)) row.latest_id = s.integer(19);
    t.declared_better = declared_directions(s.text(20));
    rows.push_back(std::move(row));
  }
  return rows;
}

void read_rows(Database& db, std::int64_t attempt_id, ReportTrial& t) {
  auto s = db.prepare("SELECT data FROM result_rows WHERE attempt_id = ? ORDER BY row_index");
  s.bind(1, attempt_id);
  while (s.step()) {
    auto row = nlohmann::json::parse(s.text(0), nullptr, false);
    if (row.is_object()) t.rows.push_back(std::move(row));
  }
}

void read_metrics(Database& db, std::int64_t attempt_id, ReportTrial& t) {
  auto s = db.prepare("SELECT name, value FROM metrics WHERE attempt_id = ? ORDER BY name");
  s.bind(1, attempt_id);
  while (s.step()) t.metrics[s.text(0)] = s.real(1);
  auto r = db.prepare("SELECT result_json FROM attempts WHERE id = ?");
  r.bind(1, attempt_id);
  if (r.step() && !r.is_null(0)) {
    auto doc = nlohmann::json::parse(r.text(0), nullptr, false);
    if (!doc.is_discarded()) t.result = std::move(doc);
  }
}

std::vector<std::string> read_file_names(Database& db, std::int64_t attempt_id) {
  std::vector<std::string> names;
  auto s = db.prepare("SELECT name FROM attempt_files WHERE attempt_id = ? ORDER BY name");
  s.bind(1, attempt_id);
  while (s.step()) names.push_back(s.text(0));
  return names;
}

std::optional<ProvenanceRow> read_provenance(Database& db, std::int64_t attempt_id) {
  // The build's own dirty state is recorded from schema version 8 on.
  const bool build_state = db.user_version() >= 8;
  auto s =
      db.prepare(std::string("SELECT coalesce(source_commit, ''), tree_dirty, coalesce(diff_hash, ''), "
                             "coalesce(build_revision, ''), coalesce(image_ref, ''), coalesce(image_id, ''), "
                             "coalesce(base_image, ''), bare_metal, coalesce(engine_binary_hash, ''), software_stack, "
                             "complete, missing_fields, ") +
                 (build_state ? "build_tree_dirty" : "NULL") + " FROM provenance WHERE attempt_id = ?");
  s.bind(1, attempt_id);
  if (!s.step()) return std::nullopt;
  ProvenanceRow p;
  p.source_commit = s.text(0);
  if (!s.is_null(1)) p.tree_dirty = s.integer(1) != 0;
  p.diff_hash = s.text(2);
  p.build_revision = s.text(3);
  p.image_ref = s.text(4);
  p.image_id = s.text(5);
  p.base_image = s.text(6);
  p.bare_metal = s.integer(7) != 0;
  p.engine_binary_hash = s.text(8);
  auto stack = nlohmann::ordered_json::parse(s.text(9), nullptr, false);
  if (stack.is_object()) p.software_stack = std::move(stack);
  p.complete = s.integer(10) != 0;
  p.missing_fields = string_array(s.text(11));
  if (!s.is_null(12)) p.build_tree_dirty = s.integer(12) != 0;
  return p;
}

}  // namespace

std::string ReportTrial::param(const std::string& name, const std::string& fallback) const {
  auto it = parameters.find(name);
  if (it == parameters.end()) return fallback;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::optional<double> ReportTrial::metric(const std::string& name) const {
  auto it = metrics.find(name);
  if (it == metrics.end()) return std::nullopt;
  return it->second;
}

std::unique_ptr<Database> open_results(const std::filesystem::path& file) { return open_store_read_only(file); }

ReportData load_report_data(Database& db, const std::vector<Campaign>& campaigns) {
  ReportData data;
  data.campaigns = campaigns;
  const bool has_rows = db.has_table("result_rows");       // from schema version 4
  const bool keeps_files = db.has_table("attempt_files");  // from schema version 5
  for (const auto& campaign : campaigns) {
    for (auto& row : read_trials(db, campaign)) {
      if (row.succeeded_id) {
        read_metrics(db, *row.succeeded_id, row.trial);
        if (has_rows) read_rows(db, *row.succeeded_id, row.trial);
        row.trial.succeeded_attempt_id = *row.succeeded_id;
        if (keeps_files) row.trial.files = read_file_names(db, *row.succeeded_id);
        row.trial.provenance = read_provenance(db, *row.succeeded_id);
        if (auto v = read_verdict(db, *row.succeeded_id)) {
          row.trial.verdict = v->verdict;
          row.trial.disturbances = std::move(v->reasons);
          row.trial.calibration_gflops = v->calibration_gflops;
          row.trial.job_ranks_here = v->job_ranks_here;
        }
        row.trial.before = read_before_launch(db, *row.succeeded_id);
      }
      if (row.trial.workload == "chain" && row.latest_id) row.trial.stages = attempt_stages(db, *row.latest_id);
      if (row.latest_id) row.trial.launches = attempt_launches(db, *row.latest_id);
      data.trials.push_back(std::move(row.trial));
    }
    const CampaignMeasurement m = read_campaign_measurement(db, campaign.id);
    if (!m.measurement.empty()) {
      const auto j = nlohmann::json::parse(m.measurement, nullptr, /*allow_exceptions=*/false);
      if (const auto conditions = recorded_conditions(m.measurement)) {
        data.keep_disturbed = data.keep_disturbed || conditions->keep_disturbed;
        data.campaign_conditions[campaign.id] = *conditions;
      }
      if (auto questions = questions_from_measurement(m.measurement)) data.questions = std::move(questions);
      if (j.is_object() && j.contains("reference_strategy") && j["reference_strategy"].is_string())
        data.reference_strategy = j["reference_strategy"].get<std::string>();
    }
  }
  // Campaigns run before mtrun kept the engine's reference strategy ran an engine whose reference
  // (its default strategy) was ddp: their reports compare with it, as they always did.
  if (data.reference_strategy.empty()) data.reference_strategy = "ddp";
  data.run_notes =
      run_conditions_notes(db, data) + before_launch_notes(data) + elsewhere_notes(data) + overlap_notes(db, data);
  return data;
}

std::string read_attempt_file(Database& db, std::int64_t attempt_id, const std::string& name) {
  if (db.has_table("attempt_files")) {
    auto s = db.prepare("SELECT content FROM attempt_files WHERE attempt_id = ? AND name = ?");
    s.bind(1, attempt_id).bind(2, name);
    if (s.step()) return s.blob(0);
  }
  throw RunnerError(kExitFailure, fmt::format("attempt {} kept no file {}", attempt_id, name));
}

}  // namespace mt
