#include "report/model/groups.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "json_fields.h"
#include "table_cell.h"

namespace mt {

std::string configuration_name(const std::string& study, const std::string& strategy, int ranks,
                               const std::string& config) {
  std::string name = study;
  if (!strategy.empty()) name += fmt::format(" {} ×{}", strategy, ranks);
  if (strategy.empty() && ranks > 1) name += fmt::format(" ×{}", ranks);
  if (!config.empty()) name += " " + config;
  return name;
}

std::string Group::label() const { return config.empty() ? study : study + " " + config; }

std::string Group::name() const { return configuration_name(study, strategy, ranks, config); }

Sample Group::sample(const std::string& metric) const {
  Sample s;
  for (const ReportTrial* t : succeeded) {
    if (auto v = t->metric(metric)) {
      s.values.push_back(*v);
      s.trials.push_back(t);
    }
  }
  return s;
}

std::vector<std::string> metric_names_under(const std::vector<const Group*>& groups, const std::string& prefix) {
  std::set<std::string> names;
  for (const Group* g : groups) {
    for (const ReportTrial* t : g->succeeded) {
      for (auto it = t->metrics.lower_bound(prefix); it != t->metrics.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        std::string name = it->first.substr(prefix.size());
        if (!name.empty() && name.find('.') == std::string::npos) names.insert(std::move(name));
      }
    }
  }
  return {names.begin(), names.end()};
}

std::string Group::result_text(const std::string& path) const {
  std::set<std::string> seen;
  std::string out;
  for (const ReportTrial* t : succeeded) {
    const nlohmann::json* v = &t->result;
    for (size_t start = 0; v && start <= path.size();) {
      size_t dot = std::min(path.find('.', start), path.size());
      std::string key = path.substr(start, dot - start);
      v = v->is_object() && v->contains(key) ? &(*v)[key] : nullptr;
      start = dot + 1;
    }
    if (!v || v->is_null()) continue;
    std::string text = v->is_string() ? v->get<std::string>() : v->dump();
    if (seen.insert(text).second) out += (out.empty() ? "" : "/") + text;
  }
  return out;
}

std::string Group::n_text() const {
  if (int(succeeded.size()) == total) return std::to_string(total);
  return fmt::format("{}/{}", succeeded.size(), total);
}

bool is_measurement(const std::string& name) {
  return name != "schema_version" && name != "world_size" && name.rfind("model_config.", 0) != 0 &&
         name.rfind("environment.", 0) != 0;
}

std::string trial_kind(const ReportTrial& t) {
  if (t.workload == "fault") return "fault";
  for (const auto& [name, value] : t.parameters.items()) {
    if (name.rfind("fault", 0) == 0) return "fault";
  }
  // An external program that reports a training benchmark (a peer implementation run as a
  // `command` study) belongs in the training tables, beside the engine it is compared with.
  // Likewise a peer of the collective benchmarks, beside mtengine comm.
  if (t.workload == "command" && t.result.is_object()) {
    const std::string benchmark = text_field(t.result, "benchmark");
    if (benchmark == "train" || benchmark == "comm") return benchmark;
  }
  return t.workload;
}

std::string trial_config(const ReportTrial& t) {
  std::string config;
  for (const auto& axis : t.axes) {
    if (axis == "strategy" || axis == "ranks") continue;
    config += fmt::format("{}{}={}", config.empty() ? "" : " ", axis, t.param(axis, "?"));
  }
  return escape_control_characters(config);  // shown in lists, headings and charts, not only tables
}

std::string scenario_label(const ReportTrial& t) {
  const std::string config = trial_config(t);
  return config.empty() ? t.study : t.study + " " + config;
}

std::string config_values(const std::string& config) {
  std::string out;
  size_t start = 0;
  while (start < config.size()) {
    size_t end = std::min(config.find(' ', start), config.size());
    std::string part = config.substr(start, end - start);
    size_t eq = part.find('=');
    out += (out.empty() ? "" : " ") + (eq == std::string::npos ? part : part.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

namespace {

// The number starting at text[i] (digits with at most one decimal point), advancing i past it.
double number_at(const std::string& text, size_t& i) {
  const size_t start = i;
  bool point = false;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) ||
          (text[i] == '.' && !point && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))))) {
    point = point || text[i] == '.';
    ++i;
  }
  return std::stod(text.substr(start, i - start));
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool digit_a = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool digit_b = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (digit_a && digit_b) {
      const double x = number_at(a, i), y = number_at(b, j);
      if (x != y) return x < y;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

bool attempt_failed(const std::optional<std::string>& state) {
  return state == "failed" || state == "timed_out" || state == "crashed" || state == "launch_failed";
}

std::vector<Group> every_group(const std::vector<ReportTrial>& trials, bool keep_disturbed) {
  std::vector<std::string> order;
  std::map<std::string, Group> by_key;
  for (const auto& t : trials) {
    auto [it, fresh] = by_key.try_emplace(t.group_key);
    Group& g = it->second;
    if (fresh) {
      order.push_back(t.group_key);
      g.key = t.group_key;
      g.study = t.study;
      g.workload = t.workload;
      g.kind = trial_kind(t);
      g.strategy = t.strategy;
      g.ranks = t.ranks;
      g.config = trial_config(t);
      g.planned = &t;
    }
    ++g.total;
    if (!t.succeeded()) {
      g.failed += attempt_failed(t.latest_state) ? 1 : 0;
      continue;
    }
    (t.disturbed() && !keep_disturbed ? g.disturbed : g.succeeded).push_back(&t);
  }
  std::vector<Group> out;
  for (const auto& key : order) out.push_back(std::move(by_key[key]));
  return out;
}

std::vector<Group> group_trials(const std::vector<ReportTrial>& trials, bool keep_disturbed) {
  std::vector<Group> out;
  for (auto& g : every_group(trials, keep_disturbed)) {
    if (!g.succeeded.empty()) out.push_back(std::move(g));
  }
  return out;
}

std::vector<const Group*> group_pointers(const std::vector<Group>& groups) {
  std::vector<const Group*> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.push_back(&g);
  return out;
}

std::vector<Group> disturbed_groups(const std::vector<ReportTrial>& trials) {
  std::vector<Group> out;
  for (auto& g : every_group(trials, false)) {
    if (g.succeeded.empty() && !g.disturbed.empty()) out.push_back(std::move(g));
  }
  return out;
}

std::vector<const Group*> groups_of(const std::vector<Group>& groups, const std::string& kind) {
  std::vector<const Group*> out;
  for (const auto& g : groups) {
    if (g.kind == kind) out.push_back(&g);
  }
  return out;
}

}  // namespace mt
