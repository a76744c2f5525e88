#include "report/sections/references_section.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/comm_rows.h"
#include "json_fields.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "stats.h"

namespace mt {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool contains_any_case(const std::string& text, const std::string& part) {
  return !text.empty() && lower(text).find(lower(part)) != std::string::npos;
}

// Whether every trial of the group ran on the hardware the scope names.
bool hardware_matches(const Group& g, const ReferenceScope& s) {
  for (const ReportTrial* t : g.succeeded) {
    const nlohmann::json env = trial_environment(*t);
    if (!s.gpu_model.empty() && !contains_any_case(environment_text(env, "gpu_model"), s.gpu_model)) return false;
    if (!s.cpu_model.empty() && !contains_any_case(environment_text(env, "cpu_model"), s.cpu_model)) return false;
  }
  return !g.succeeded.empty();
}

// "512" and "512.0" are the same value; anything else compares as text.
bool same_value(const std::string& ours, const std::string& theirs) {
  if (ours == theirs) return true;
  try {
    size_t a = 0, b = 0;
    const double x = std::stod(ours, &a), y = std::stod(theirs, &b);
    return a == ours.size() && b == theirs.size() && x == y;
  } catch (const std::exception&) {
    return false;
  }
}

bool configuration_matches(const Group& g, const ReferenceScope& s) {
  if (g.kind != s.workload) return false;
  if (!s.strategy.empty() && g.strategy != s.strategy) return false;
  if (s.ranks && g.ranks != *s.ranks) return false;
  for (const auto& [path, value] : s.result) {
    if (!same_value(g.result_text(path), value)) return false;
  }
  return true;
}

bool size_in_scope(double bytes, const ReferenceScope& s) {
  if (s.bytes && bytes != *s.bytes) return false;
  if (s.min_bytes && bytes < *s.min_bytes) return false;
  if (s.max_bytes && bytes > *s.max_bytes) return false;
  return true;
}

// The best mean of a collective's metric over the sizes and placements in scope, and where.
std::optional<std::pair<double, std::string>> best_row_mean(const Group& g, const ReferenceEntry& e) {
  std::map<std::pair<double, std::string>, std::vector<double>> points;  // (bytes, placement) -> repeats
  for (const ReportTrial* t : g.succeeded) {
    for (const auto& row : t->rows) {
      if (text_field(row, "operation") != e.scope.operation) continue;
      if (!e.scope.dtype.empty() && text_field(row, "dtype") != e.scope.dtype) continue;
      auto bytes = row.find("bytes");
      auto value = row.find(e.metric);
      if (bytes == row.end() || !bytes->is_number() || value == row.end() || !value->is_number()) continue;
      if (!size_in_scope(bytes->get<double>(), e.scope)) continue;
      auto in_place = row.find("in_place");
      const bool in = in_place != row.end() && in_place->is_boolean() && in_place->get<bool>();
      std::string placement = in ? "in place" : "out of place";
      if (const std::string split = text_field(row, "split"); !split.empty()) placement += ", " + split;
      points[{bytes->get<double>(), placement}].push_back(value->get<double>());
    }
  }
  std::optional<std::pair<double, std::string>> best;
  for (const auto& [where, values] : points) {
    const double m = mean(values);
    if (!best || m > best->first)
      best = std::make_pair(m, fmt::format("{}, {}, {}", e.scope.operation, size_text(where.first), where.second));
  }
  return best;
}

std::string metric_name(const std::string& metric) {
  if (metric == "tokens_per_sec") return "tokens/s";
  if (metric == "busbw_gbps") return "busbw GB/s";
  return "algbw GB/s";
}

int decimals(const std::string& metric) { return metric == "tokens_per_sec" ? 0 : 1; }

std::string reference_cell(const ReferenceEntry& e) {
  const int d = decimals(e.metric);
  return e.is_range() ? fmt::format("{}–{}", fixed(e.low, d), fixed(e.high, d)) : fixed(e.low, d);
}

std::string share_cell(const ReferenceMatch& m) {
  const ReferenceEntry& e = *m.entry;
  if (!e.is_range()) return percent(m.ours / e.low);
  return fmt::format("{}–{}", percent(m.ours / e.high), percent(m.ours / e.low));
}

std::string source_cell(const ReferenceEntry& e) {
  std::string title = e.source.url.empty() ? e.source.title : fmt::format("[{}]({})", e.source.title, e.source.url);
  if (!e.source.date.empty()) title += fmt::format(" ({})", e.source.date);
  return title;
}

// "ddp_scaling ddp, 8 ranks".
std::string group_cell(const Group& g) {
  const std::string strategy = g.strategy.empty() || g.strategy == "-" ? "" : " " + g.strategy;
  return fmt::format("{}{}, {} rank{}", g.label(), strategy, g.ranks, g.ranks == 1 ? "" : "s");
}

}  // namespace

std::string group_hardware(const Group& group) {
  if (group.succeeded.empty()) return "";
  const nlohmann::json env = trial_environment(group.first());
  if (std::string gpu = environment_text(env, "gpu_model"); !gpu.empty()) return gpu;
  const std::string cpu = environment_text(env, "cpu_model");
  return cpu.empty() ? "CPU" : "CPU (" + cpu + ")";
}

std::vector<ReferenceMatch> match_references(const std::vector<Group>& groups, const ReferenceFile& references) {
  std::vector<ReferenceMatch> out;
  for (const Group& g : groups) {
    for (const ReferenceEntry& e : references.entries) {
      if (!configuration_matches(g, e.scope) || !hardware_matches(g, e.scope)) continue;
      ReferenceMatch m{&g, &e, 0, group_hardware(g), ""};
      if (is_row_metric(e.metric)) {
        auto best = best_row_mean(g, e);
        if (!best) continue;
        m.ours = best->first;
        m.measured = best->second;
      } else {
        const std::vector<double> values = g.sample(e.metric).values;
        if (values.empty()) continue;
        m.ours = mean(values);
      }
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::string render_references_section(const std::vector<Group>& groups, const ReferenceFile& references) {
  std::set<std::string> workloads;  // those the file has figures for that these results have groups of
  for (const ReferenceEntry& e : references.entries) {
    for (const Group& g : groups) {
      if (g.kind == e.scope.workload) workloads.insert(g.kind);
    }
  }
  if (workloads.empty()) return "";
  const std::string file = fmt::format("{} (version {})", code(references.path), references.version);
  const std::vector<ReferenceMatch> matches = match_references(groups, references);
  std::string out = "## Against published references\n\n";
  if (matches.empty()) {
    std::set<std::string> hardware;
    for (const Group& g : groups) {
      if (workloads.count(g.kind)) hardware.insert(group_hardware(g));
    }
    std::string ran_on;
    for (const auto& h : hardware) ran_on += (ran_on.empty() ? "" : ", ") + h;
    return out + fmt::format("No published reference in {} applies to these runs ({}).\n\n", file, ran_on);
  }
  out += fmt::format(
      "Published figures from {} whose hardware and configuration match a group: our mean as a share of the "
      "figure (of each end, for a range). A collective is held at its best mean over the message sizes the "
      "figure applies to.\n\n",
      file);
  MarkdownTable table({{"group"},
                       {"hardware"},
                       {"metric"},
                       {"ours", Align::Right},
                       {"reference", Align::Right},
                       {"share", Align::Right},
                       {"n", Align::Right},
                       {"reference id"},
                       {"source"}});
  std::vector<const ReferenceEntry*> noted;
  for (const ReferenceMatch& m : matches) {
    const std::string metric =
        m.measured.empty() ? metric_name(m.entry->metric) : metric_name(m.entry->metric) + " (" + m.measured + ")";
    table.add_row({group_cell(*m.group), m.hardware, metric, fixed(m.ours, decimals(m.entry->metric)),
                   reference_cell(*m.entry), share_cell(m), m.group->n_text(), code(m.entry->id),
                   source_cell(*m.entry)});
    if ((!m.entry->note.empty() || !m.entry->scope.model.empty()) &&
        std::find(noted.begin(), noted.end(), m.entry) == noted.end())
      noted.push_back(m.entry);
  }
  out += table.render() + "\n";
  for (const ReferenceEntry* e : noted) {
    std::string what = e->scope.model;
    if (!e->note.empty()) what += (what.empty() ? "" : ". ") + e->note;
    if (!what.empty() && what.back() != '.') what += '.';
    out += fmt::format("- {}: {}\n", code(e->id), what);
  }
  if (!noted.empty()) out += "\n";
  return out;
}

}  // namespace mt
