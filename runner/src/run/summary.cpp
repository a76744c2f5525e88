#include "run/summary.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "experiment/metric_catalogue.h"
#include "launch/queue_note.h"
#include "run/progress.h"
#include "store/before_launch.h"
#include "stats.h"
#include "store/campaign_measurement.h"
#include "store/conditions_rows.h"
#include "store/launch_rows.h"
#include "store/lease.h"
#include "store/question_json.h"
#include "store/stage_rows.h"
#include "store/trial_json.h"
#include "table_cell.h"
#include "text_table.h"

namespace mt {
namespace {

// "ranks=1 env.OMP_NUM_THREADS=2": the trial's value of each axis, from its recorded parameters
// (stored_parameters: `env.*` axes included).
std::string config_label(const nlohmann::ordered_json& params, const std::string& axes_json) {
  auto axes = nlohmann::json::parse(axes_json, nullptr, false);
  std::string label;
  if (!axes.is_array()) return label;
  for (const auto& axis : axes) {
    std::string name = axis.get<std::string>();
    if (!label.empty()) label += ' ';
    label += fmt::format("{}={}", name, params.value(name, std::string("?")));
  }
  return label.empty() ? "(defaults)" : label;
}

std::string optional_number(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "";
}

// The metrics the campaign's questions ask about that the summary does not show anyway.
std::vector<std::string> asked_metric_names(Database& db, const std::string& campaign_id) {
  const std::string measurement = read_campaign_measurement(db, campaign_id).measurement;  // "" before version 6
  std::vector<std::string> names;
  if (measurement.empty()) return names;
  for (const auto& q : questions_from_measurement(measurement).value_or(std::vector<Question>{})) {
    if (q.metric == "tokens_per_sec" || q.metric == "step_time_ms") continue;
    if (std::find(names.begin(), names.end(), q.metric) == names.end()) names.push_back(q.metric);
  }
  return names;
}

void read_asked_metrics(Database& db, const std::vector<std::string>& names, std::vector<TrialRow>& rows) {
  if (names.empty()) return;
  auto s = db.prepare("SELECT value FROM metrics WHERE attempt_id = ? AND name = ?");
  for (auto& row : rows) {
    if (!row.attempt_id) continue;
    for (const auto& name : names) {
      s.reset();
      s.bind(1, *row.attempt_id);
      s.bind(2, name);
      if (s.step() && !s.is_null(0)) row.asked_metrics.emplace_back(name, s.real(0));
    }
  }
}

std::string metric_title(const std::string& name) {
  const auto info = known_metric(name);
  return info ? info->title : name;
}

// The metric columns of a campaign's tables: tokens/s and step ms where trials train or recorded
// them, then the other metrics the questions ask about that any trial recorded.
struct MetricColumns {
  bool training = false;
  std::vector<std::string> asked;
};

MetricColumns metric_columns(const std::vector<TrialRow>& rows) {
  MetricColumns columns;
  for (const auto& r : rows) {
    columns.training = columns.training || r.workload == "train" || r.tokens_per_sec || r.step_time_ms;
    for (const auto& metric : r.asked_metrics) {
      const std::string& name = metric.first;
      if (std::find(columns.asked.begin(), columns.asked.end(), name) == columns.asked.end())
        columns.asked.push_back(name);
    }
  }
  return columns;
}

std::optional<double> asked_value(const TrialRow& row, const std::string& name) {
  for (const auto& [metric, value] : row.asked_metrics) {
    if (metric == name) return value;
  }
  return std::nullopt;
}

}  // namespace

std::string format_mean_std(const std::vector<double>& xs, int decimals) {
  if (xs.empty()) return "-";
  return fmt::format("{:.{}f} ± {:.{}f}", mean(xs), decimals, sample_std(xs), decimals);
}

std::vector<TrialRow> campaign_trials(Database& db, const std::string& campaign_id) {
  auto s = db.prepare(R"sql(
    SELECT t.identity, t.group_key, t.study, t.parameters, t.axes, t.repeat_index,
           a.state, (SELECT count(*) FROM attempts x WHERE x.trial_id = t.id), a.exit_code, a.duration_s,
           (SELECT value FROM metrics m WHERE m.attempt_id = a.id AND m.name = 'tokens_per_sec'),
           (SELECT value FROM metrics m WHERE m.attempt_id = a.id AND m.name = 'step_time_ms'),
           a.log_path, a.error_reason, a.runner_host, a.runner_pid, t.workload, a.id, a.run_dir,
           (julianday('now') - julianday(a.started_at)) * 86400.0, t.spec
    FROM trials t LEFT JOIN latest_attempts a ON a.trial_id = t.id
    WHERE t.campaign_id = ? ORDER BY t.ordinal)sql");
  s.bind(1, campaign_id);
  std::vector<TrialRow> rows;
  while (s.step()) {
    TrialRow r;
    r.identity = s.text(0);
    r.group_key = s.text(1);
    r.study = s.text(2);
    r.config = config_label(stored_parameters(s.text(3), s.text(20)), s.text(4));
    r.repeat_index = int(s.integer(5));
    if (!s.is_null(6)) r.state = s.text(6);
    r.attempts = int(s.integer(7));
    if (!s.is_null(8)) r.exit_code = int(s.integer(8));
    if (!s.is_null(9)) r.duration_s = s.real(9);
    if (!s.is_null(10)) r.tokens_per_sec = s.real(10);
    if (!s.is_null(11)) r.step_time_ms = s.real(11);
    r.log_path = s.text(12);
    r.error_reason = s.text(13);
    r.workload = s.text(16);
    if (!s.is_null(17)) r.attempt_id = s.integer(17);
    if (r.state == std::string("running") &&
        !attempt_runner_alive(db, campaign_id, s.text(14), s.integer(15), std::time(nullptr))) {
      r.state = "interrupted";
      r.error_reason = gone_runner_reason(s.text(14), s.integer(15));
    } else if (r.state == std::string("running")) {
      if (!s.is_null(19)) r.running_s = std::max(0.0, s.real(19));
      if (auto note = read_queue_note(std::filesystem::path(s.text(18)) / kQueueNoteName)) {
        r.queued = fmt::format("{}, {}", escape_control_characters(note->state),
                               format_duration(std::max(0.0, std::difftime(std::time(nullptr), note->launched_at))));
      }
    }
    rows.push_back(std::move(r));
  }
  read_asked_metrics(db, asked_metric_names(db, campaign_id), rows);
  for (auto& row : rows) {
    if (!row.attempt_id) continue;
    if (auto verdict = read_verdict(db, *row.attempt_id)) row.verdict = verdict->verdict;
  }
  return rows;
}

bool keeps_disturbed(Database& db, const std::string& campaign_id) {
  const auto conditions = recorded_conditions(read_campaign_measurement(db, campaign_id).measurement);
  return conditions && conditions->keep_disturbed;
}

std::string rerun_disturbed_advice(bool waited_for_quiet) {
  return fmt::format("`mtrun rerun --disturbed` measures them again{}",
                     waited_for_quiet ? ""
                                      : ", on a quiet machine with --wait-quiet SECONDS (without it they run at once, "
                                        "busy or not, as do trials run in parallel; `mtrun look` says what keeps the "
                                        "machine busy)");
}

bool disturbed_attempts_waited(Database& db, const std::vector<TrialRow>& rows) {
  return std::all_of(rows.begin(), rows.end(), [&db](const TrialRow& r) {
    return r.state != std::string("succeeded") || !r.disturbed() || !r.attempt_id ||
           read_before_launch(db, *r.attempt_id).quiet_wait_s.has_value();
  });
}

std::string render_summary(const std::vector<TrialRow>& rows, bool keep_disturbed) {
  struct Group {
    std::string study, config;
    int total = 0, succeeded = 0, disturbed = 0;
    std::vector<double> tokens, step_ms;
    std::map<std::string, std::vector<double>> asked;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const auto& r : rows) {
    auto [it, fresh] = groups.try_emplace(r.group_key);
    if (fresh) {
      order.push_back(r.group_key);
      it->second.study = r.study;
      it->second.config = r.config;
    }
    Group& g = it->second;
    ++g.total;
    if (r.state != std::string("succeeded")) continue;
    if (r.disturbed() && !keep_disturbed) {
      ++g.disturbed;
      continue;
    }
    ++g.succeeded;
    if (r.tokens_per_sec) g.tokens.push_back(*r.tokens_per_sec);
    if (r.step_time_ms) g.step_ms.push_back(*r.step_time_ms);
    for (const auto& [name, value] : r.asked_metrics) g.asked[name].push_back(value);
  }
  const MetricColumns columns = metric_columns(rows);
  std::vector<std::string> headings = {"study", "configuration", "n"};
  if (columns.training) headings.insert(headings.end(), {"tokens/s (mean ± std)", "step ms (mean ± std)"});
  for (const auto& name : columns.asked) headings.push_back(metric_title(name) + " (mean ± std)");
  TextTable table(headings);
  for (const auto& key : order) {
    Group& g = groups[key];
    std::string n = g.succeeded == g.total ? std::to_string(g.total) : fmt::format("{}/{}", g.succeeded, g.total);
    if (g.disturbed > 0) n += fmt::format(" ({} disturbed)", g.disturbed);
    std::vector<std::string> cells = {g.study, g.config, n};
    if (columns.training) cells.insert(cells.end(), {format_mean_std(g.tokens, 0), format_mean_std(g.step_ms, 1)});
    for (const auto& name : columns.asked) {
      const std::vector<double>& xs = g.asked[name];
      cells.push_back(format_mean_std(xs, xs.empty() ? 0 : auto_decimals(mean(xs))));
    }
    table.add_row(cells);
  }
  return table.render();
}

std::string where_to_look(const std::vector<TrialRow>& rows) {
  std::string out = "mtrun status; mtrun report";
  for (const auto& [workload, view] : {std::pair{"train", "training"}, std::pair{"comm", "comm_rows"}}) {
    const bool present = std::any_of(rows.begin(), rows.end(),
                                     [workload = workload](const TrialRow& r) { return r.workload == workload; });
    if (present) out += fmt::format("; mtrun query \"select * from {}\"", view);
  }
  return out;
}

std::string render_trial_table(const std::vector<TrialRow>& rows) {
  const MetricColumns columns = metric_columns(rows);
  std::vector<std::string> headings = {"trial", "study", "configuration", "rep", "state", "att", "exit"};
  const bool judged = std::any_of(rows.begin(), rows.end(), [](const TrialRow& r) { return r.verdict.has_value(); });
  if (judged) headings.push_back("machine");
  if (columns.training) headings.insert(headings.end(), {"tokens/s", "step ms"});
  for (const auto& name : columns.asked) headings.push_back(metric_title(name));
  headings.push_back("s");
  TextTable table(headings);
  for (const auto& r : rows) {
    std::vector<std::string> cells = {r.identity.substr(0, 12),
                                      r.study,
                                      r.config,
                                      std::to_string(r.repeat_index),
                                      r.queued ? "queued" : r.state.value_or("pending"),
                                      std::to_string(r.attempts),
                                      r.exit_code ? std::to_string(*r.exit_code) : ""};
    if (judged) cells.push_back(r.verdict.value_or(""));
    if (columns.training) {
      cells.insert(cells.end(), {optional_number(r.tokens_per_sec, 0), optional_number(r.step_time_ms, 1)});
    }
    for (const auto& name : columns.asked) {
      const auto value = asked_value(r, name);
      cells.push_back(value ? optional_number(value, auto_decimals(*value)) : "");
    }
    cells.push_back(optional_number(r.duration_s, 1));
    table.add_row(cells);
  }
  return table.render();
}

std::string render_chain_stages(Database& db, const std::vector<TrialRow>& rows) {
  TextTable table({"trial", "stage", "met", "expected", "observed"});
  for (const auto& r : rows) {
    if (r.workload != "chain" || !r.attempt_id) continue;
    for (const auto& stage : attempt_stages(db, *r.attempt_id)) {
      const std::string met = !stage.met ? stage.state : *stage.met ? "yes" : "NO";
      table.add_row({r.identity.substr(0, 12), fmt::format("{} {}", stage.position, stage.name), met, stage.expected,
                     stage.observed});
    }
  }
  return table.empty() ? "" : table.render();
}

std::string render_relaunches(Database& db, const std::vector<TrialRow>& rows) {
  TextTable table({"trial", "stage", "launch", "ended", "steps done", "resumed from", "recomputed", "recovery s"});
  auto number = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("-"); };
  for (const auto& r : rows) {
    if (!r.attempt_id) continue;
    const auto launches = attempt_launches(db, *r.attempt_id);
    for (const auto& job : relaunched_jobs(launches)) {
      for (const LaunchRow* l : job) {
        table.add_row({r.identity.substr(0, 12), l->stage.empty() ? "-" : l->stage, std::to_string(l->launch),
                       launch_ending(*l), number(l->reached_step),
                       l->resumed_from_step ? std::to_string(*l->resumed_from_step) : "start", number(l->lost_steps),
                       l->recovery_s ? fmt::format("{:.2f}", *l->recovery_s) : "-"});
      }
    }
  }
  return table.empty() ? "" : table.render();
}

}  // namespace mt
