#include "run/summary.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launch/queue_note.h"
#include "run/progress.h"
#include "stats.h"
#include "store/launch_rows.h"
#include "store/stage_rows.h"
#include "store/lease.h"
#include "table_cell.h"
#include "text_table.h"

namespace mt {
namespace {

std::string config_label(const std::string& parameters_json, const std::string& axes_json) {
  auto params = nlohmann::json::parse(parameters_json, nullptr, false);
  auto axes = nlohmann::json::parse(axes_json, nullptr, false);
  std::string label;
  if (!params.is_object() || !axes.is_array()) return label;
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
           (julianday('now') - julianday(a.started_at)) * 86400.0
    FROM trials t LEFT JOIN latest_attempts a ON a.trial_id = t.id
    WHERE t.campaign_id = ? ORDER BY t.ordinal)sql");
  s.bind(1, campaign_id);
  std::vector<TrialRow> rows;
  while (s.step()) {
    TrialRow r;
    r.identity = s.text(0);
    r.group_key = s.text(1);
    r.study = s.text(2);
    r.config = config_label(s.text(3), s.text(4));
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
      r.error_reason = fmt::format(
          "mtrun (pid {} on {}) is gone; the next `mtrun run` or `mtrun rerun --failed` runs "
          "this trial again",
          s.integer(15), s.text(14));
    } else if (r.state == std::string("running")) {
      if (!s.is_null(19)) r.running_s = std::max(0.0, s.real(19));
      if (auto note = read_queue_note(std::filesystem::path(s.text(18)) / kQueueNoteName)) {
        r.queued = fmt::format("{}, {}", escape_control_characters(note->state),
                               format_duration(std::max(0.0, std::difftime(std::time(nullptr), note->launched_at))));
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string render_summary(const std::vector<TrialRow>& rows) {
  struct Group {
    std::string study, config;
    int total = 0, succeeded = 0;
    std::vector<double> tokens, step_ms;
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
    ++g.succeeded;
    if (r.tokens_per_sec) g.tokens.push_back(*r.tokens_per_sec);
    if (r.step_time_ms) g.step_ms.push_back(*r.step_time_ms);
  }
  TextTable table({"study", "configuration", "n", "tokens/s (mean ± std)", "step ms (mean ± std)"});
  for (const auto& key : order) {
    const Group& g = groups[key];
    std::string n = g.succeeded == g.total ? std::to_string(g.total) : fmt::format("{}/{}", g.succeeded, g.total);
    table.add_row({g.study, g.config, n, format_mean_std(g.tokens, 0), format_mean_std(g.step_ms, 1)});
  }
  return table.render();
}

std::string render_trial_table(const std::vector<TrialRow>& rows) {
  TextTable table({"trial", "study", "configuration", "rep", "state", "att", "exit", "tokens/s", "step ms", "s"});
  for (const auto& r : rows) {
    table.add_row({r.identity.substr(0, 12), r.study, r.config, std::to_string(r.repeat_index),
                   r.queued ? "queued" : r.state.value_or("pending"), std::to_string(r.attempts),
                   r.exit_code ? std::to_string(*r.exit_code) : "", optional_number(r.tokens_per_sec, 0),
                   optional_number(r.step_time_ms, 1), optional_number(r.duration_s, 1)});
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
