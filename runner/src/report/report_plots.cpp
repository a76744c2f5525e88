#include "report/report_plots.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/svg_chart.h"
#include "report/training_tables.h"
#include "stats.h"

namespace mt {
namespace {

// "every" for "gradient_sync_mode=every": charts have little room, and the values tell configurations apart.
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

std::string chart_label(const Group& g) {
  std::string values = config_values(g.config);
  return fmt::format("{} ×{}{}{}", g.strategy, g.ranks, values.empty() ? "" : " ", values);
}

// A line in the scaling chart: one configuration of one strategy over rank counts. Its one-rank
// point is the comparable one-rank group (the same baseline the scaling efficiency uses).
struct Line {
  std::string name;
  std::map<int, const Group*> by_ranks;
};

std::vector<Line> scaling_lines(const std::vector<TrainingRow>& rows, const std::vector<const Group*>& groups) {
  std::vector<Line> lines;
  std::set<const Group*> used;
  auto line_for = [&](const Group& g) -> Line& {
    std::string values = config_values(g.config);
    std::string name = values.empty() ? g.strategy : g.strategy + " " + values;
    for (auto& l : lines) {
      if (l.name == name) return l;
    }
    lines.push_back({name, {}});
    return lines.back();
  };
  for (const auto& r : rows) {
    if (r.group->ranks == 1) continue;
    Line& line = line_for(*r.group);
    line.by_ranks[r.group->ranks] = r.group;
    if (r.one_rank) {
      line.by_ranks[1] = r.one_rank;
      used.insert(r.one_rank);
    }
  }
  for (const auto& r : rows) {
    if (r.group->ranks == 1 && !used.count(r.group)) line_for(*r.group).by_ranks[1] = r.group;
  }
  return lines;
}

std::vector<int> rank_counts(const std::vector<Line>& lines) {
  std::set<int> ranks;
  for (const auto& l : lines) {
    for (const auto& [r, g] : l.by_ranks) ranks.insert(r);
  }
  return {ranks.begin(), ranks.end()};
}

Plot tokens_plot(const std::vector<Line>& lines) {
  std::vector<int> ranks = rank_counts(lines);
  ChartSpec c{"Throughput vs ranks (mean ± std; dashed: ideal scaling)", "ranks", "tokens/s", {}, {}};
  for (int r : ranks) c.categories.push_back(std::to_string(r));
  for (size_t li = 0; li < lines.size(); ++li) {
    const Line& line = lines[li];
    ChartSeries measured{line.name, {}, {}, false, int(li)};
    ChartSeries ideal{"", {}, {}, true, int(li)};  // unnamed: the title explains the dashes
    auto base = line.by_ranks.find(1);
    double base_tokens = base == line.by_ranks.end() ? 0 : mean(base->second->sample("tokens_per_sec").values);
    for (int r : ranks) {
      auto it = line.by_ranks.find(r);
      auto values = it == line.by_ranks.end() ? std::vector<double>{} : it->second->sample("tokens_per_sec").values;
      measured.values.push_back(values.empty() ? std::nullopt : std::optional<double>(mean(values)));
      measured.errors.push_back(values.empty() ? 0 : sample_std(values));
      ideal.values.push_back(base_tokens > 0 ? std::optional<double>(base_tokens * r) : std::nullopt);
    }
    c.series.push_back(std::move(measured));
    if (base_tokens > 0 && line.by_ranks.size() > 1) c.series.push_back(std::move(ideal));
  }
  return {"tokens_per_sec.svg", "Throughput vs ranks", line_chart_svg(c)};
}

Plot memory_plot(const std::vector<Line>& lines) {
  std::vector<int> ranks = rank_counts(lines);
  ChartSpec c{"Peak memory per strategy (mean over repeats)", "ranks", "peak MiB (max over ranks)", {}, {}};
  for (int r : ranks) c.categories.push_back(std::to_string(r));
  for (const auto& line : lines) {
    ChartSeries s{line.name, {}, {}, false, -1};
    for (int r : ranks) {
      auto it = line.by_ranks.find(r);
      auto values = it == line.by_ranks.end() ? std::vector<double>{} : it->second->sample("peak_memory_mb").values;
      s.values.push_back(values.empty() ? std::nullopt : std::optional<double>(mean(values)));
    }
    c.series.push_back(std::move(s));
  }
  return {"peak_memory.svg", "Peak memory per strategy", bar_chart_svg(c, false)};
}

Plot breakdown_plot(const std::vector<TrainingRow>& rows) {
  ChartSpec c{"Step time breakdown (mean over repeats)", "configuration", "ms per step", {}, {}};
  ChartSeries data{"data", {}, {}, false, -1}, fwd{"forward+backward", {}, {}, false, -1},
      opt{"optimizer", {}, {}, false, -1}, other{"other (step − parts)", {}, {}, false, -1};
  for (const auto& r : rows) {
    const Group& g = *r.group;
    c.categories.push_back(chart_label(g));
    auto add = [](ChartSeries& s, const Summary& m) {
      s.values.push_back(m.n ? std::optional<double>(m.mean) : std::nullopt);
    };
    add(data, r.data_ms);
    add(fwd, r.forward_backward_ms);
    add(opt, r.optimizer_ms);
    double parts = r.data_ms.mean + r.forward_backward_ms.mean + r.optimizer_ms.mean;
    other.values.push_back(r.step_ms.n && r.step_ms.mean > parts ? std::optional<double>(r.step_ms.mean - parts)
                                                                   : std::nullopt);
  }
  c.series = {data, fwd, opt, other};
  return {"step_breakdown.svg", "Step time breakdown", bar_chart_svg(c, true)};
}

}  // namespace

std::vector<Plot> training_plots(const std::vector<const Group*>& groups) {
  if (groups.empty()) return {};
  std::vector<TrainingRow> rows = training_rows(groups);
  std::vector<Line> lines = scaling_lines(rows, groups);
  return {tokens_plot(lines), memory_plot(lines), breakdown_plot(rows)};
}

}  // namespace mt
