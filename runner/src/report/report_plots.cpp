#include "report/report_plots.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/model_state.h"
#include "report/training_tables.h"
#include "stats.h"

namespace mt {
namespace {

// How charts name a group: the study whenever several are plotted, so that two studies never
// share a label.
struct Naming {
  bool with_study = false;
  std::string series(const Group& g) const {
    std::string values = config_values(g.config);
    return (with_study ? g.study + " " : "") + g.strategy + (values.empty() ? "" : " " + values);
  }
  std::string category(const TrainingRow& r) const {
    const Group& g = *r.group;
    std::string values = config_values(g.config);
    return fmt::format("{}{} ×{}{}{}{}", with_study ? g.study + " " : "", g.strategy, g.ranks,
                       values.empty() ? "" : " ", values, r.cores.oversubscribed() ? " ⚠" : "");
  }
};

Naming naming_for(const std::vector<TrainingRow>& rows) {
  std::set<std::string> studies;
  for (const auto& r : rows) studies.insert(r.group->study);
  return {studies.size() > 1};
}

// A line in the scaling chart: one configuration of one study and strategy over rank counts. Its
// one-rank point is the comparable one-rank group (the same baseline the scaling efficiency uses).
struct Line {
  std::string name;
  std::map<int, const TrainingRow*> by_ranks;
};

std::vector<Line> scaling_lines(const std::vector<TrainingRow>& rows, const Naming& naming) {
  std::map<const Group*, const TrainingRow*> row_of;
  for (const auto& r : rows) row_of[r.group] = &r;
  std::vector<Line> lines;
  std::set<const Group*> used;
  auto line_for = [&](const Group& g) -> Line& {
    std::string name = naming.series(g);
    for (auto& l : lines) {
      if (l.name == name) return l;
    }
    lines.push_back({name, {}});
    return lines.back();
  };
  for (const auto& r : rows) {
    if (r.group->ranks == 1) continue;
    Line& line = line_for(*r.group);
    line.by_ranks[r.group->ranks] = &r;
    if (r.one_rank) {
      line.by_ranks[1] = row_of.at(r.one_rank);
      used.insert(r.one_rank);
    }
  }
  for (const auto& r : rows) {
    if (r.group->ranks == 1 && !used.count(r.group)) line_for(*r.group).by_ranks[1] = &r;
  }
  return lines;
}

std::vector<int> rank_counts(const std::vector<Line>& lines) {
  std::set<int> ranks;
  for (const auto& l : lines) {
    for (const auto& [r, row] : l.by_ranks) ranks.insert(r);
  }
  return {ranks.begin(), ranks.end()};
}

// "4 (oversubscribed)" when any configuration plotted at that rank count oversubscribed the cores.
std::vector<std::string> rank_categories(const std::vector<Line>& lines, const std::vector<int>& ranks) {
  std::vector<std::string> out;
  for (int r : ranks) {
    bool oversubscribed = false;
    for (const auto& l : lines) {
      auto it = l.by_ranks.find(r);
      oversubscribed = oversubscribed || (it != l.by_ranks.end() && it->second->cores.oversubscribed());
    }
    out.push_back(std::to_string(r) + (oversubscribed ? " (oversubscribed)" : ""));
  }
  return out;
}

std::optional<double> mean_of(const Summary& s) { return s.n ? std::optional<double>(s.mean) : std::nullopt; }

bool has_values(const ChartSeries& s) {
  return std::any_of(s.values.begin(), s.values.end(), [](const auto& v) { return v.has_value(); });
}

// Charts over configurations mark oversubscribed ones "⚠" (labels have little room); the title says what it means.
void explain_marks(const std::vector<TrainingRow>& rows, ChartSpec& c) {
  if (std::any_of(rows.begin(), rows.end(), [](const TrainingRow& r) { return r.cores.oversubscribed(); })) {
    c.title += " — ⚠ oversubscribed";
  }
}

Plot make_plot(const char* file, const char* caption, ChartSpec chart, bool bars, bool stacked) {
  std::string svg = bars ? bar_chart_svg(chart, stacked) : line_chart_svg(chart);
  return {file, caption, std::move(chart), std::move(svg)};
}

void tokens_plot(const std::vector<Line>& lines, PlotSet& out) {
  std::vector<int> ranks = rank_counts(lines);
  ChartSpec c{"", "ranks", "tokens/s", rank_categories(lines, ranks), {}};
  bool any_ideal = false, ideal_withheld = false;
  for (size_t li = 0; li < lines.size(); ++li) {
    const Line& line = lines[li];
    ChartSeries measured{line.name, {}, {}, false, int(li)};
    ChartSeries ideal{"", {}, {}, true, int(li)};  // unnamed: the title explains the dashes
    auto base = line.by_ranks.find(1);
    double base_tokens = base == line.by_ranks.end() ? 0 : base->second->tokens_per_sec.mean;
    bool ideal_beyond_one = false;
    for (int r : ranks) {
      auto it = line.by_ranks.find(r);
      const TrainingRow* row = it == line.by_ranks.end() ? nullptr : it->second;
      measured.values.push_back(row ? mean_of(row->tokens_per_sec) : std::nullopt);
      measured.errors.push_back(row ? row->tokens_per_sec.std : 0);
      // Ideal scaling is drawn only where the ranks brought cores of their own.
      bool comparable = r == 1 || (row && row->scaling_basis == ScalingBasis::Comparable);
      if (r > 1 && row && !comparable) ideal_withheld = true;
      ideal.values.push_back(base_tokens > 0 && comparable ? std::optional<double>(base_tokens * r) : std::nullopt);
      ideal_beyond_one = ideal_beyond_one || (r > 1 && comparable && row && base_tokens > 0);
    }
    c.series.push_back(std::move(measured));
    if (ideal_beyond_one) {
      c.series.push_back(std::move(ideal));
      any_ideal = true;
    }
  }
  c.title = any_ideal ? "Throughput vs ranks (mean ± std; dashed: ideal scaling)" : "Throughput vs ranks (mean ± std)";
  if (ideal_withheld) {
    out.notes.push_back(
        "Throughput vs ranks draws no ideal-scaling line where the ranks shared the cores of the 1-rank run or "
        "oversubscribed them: ideal scaling there is not ranks × the 1-rank throughput.");
  }
  out.plots.push_back(make_plot("tokens_per_sec.svg", "Throughput vs ranks", std::move(c), false, false));
}

void memory_plot(const std::vector<Line>& lines, PlotSet& out) {
  std::vector<int> ranks = rank_counts(lines);
  ChartSpec c{
      "Peak memory (RSS, max over ranks; mean over repeats)", "ranks", "peak MiB", rank_categories(lines, ranks), {}};
  std::vector<std::string> without;
  for (size_t li = 0; li < lines.size(); ++li) {
    ChartSeries s{lines[li].name, {}, {}, false, int(li)};
    for (int r : ranks) {
      auto it = lines[li].by_ranks.find(r);
      s.values.push_back(it == lines[li].by_ranks.end() ? std::nullopt : mean_of(it->second->peak_memory_mb));
    }
    if (has_values(s)) c.series.push_back(std::move(s));
    else without.push_back(lines[li].name);
  }
  if (c.series.empty()) {
    out.notes.push_back("Peak memory is not plotted: no configuration recorded its peak RSS.");
    return;
  }
  std::string names;
  for (const auto& n : without) names += (names.empty() ? "" : ", ") + n;
  if (!names.empty()) out.notes.push_back("Peak memory leaves out " + names + ": no peak RSS recorded.");
  out.plots.push_back(make_plot("peak_memory.svg", "Peak memory per configuration", std::move(c), true, false));
}

void model_state_plot(const std::vector<TrainingRow>& rows, const Naming& naming, PlotSet& out) {
  ChartSpec c{"Model state per rank (mean over repeats)", "configuration", "MiB held by one rank", {}, {}};
  ChartSeries parameters{"parameters", {}, {}, false, -1}, gradients{"gradients (peak)", {}, {}, false, -1},
      optimizer{"optimizer state", {}, {}, false, -1}, gathered{"gathered parameters", {}, {}, false, -1};
  for (const auto& r : rows) {
    auto s = mean_model_state(*r.group);
    if (!s) continue;
    c.categories.push_back(naming.category(r));
    parameters.values.push_back(s->parameters);
    gradients.values.push_back(s->gradients);
    optimizer.values.push_back(s->optimizer);
    gathered.values.push_back(s->gathered > 0 ? std::optional<double>(s->gathered) : std::nullopt);
  }
  if (c.categories.empty()) {
    out.notes.push_back(
        "Model state is not plotted: no configuration reported its parameter, gradient and "
        "optimizer-state bytes.");
    return;
  }
  c.series = {parameters, gradients, optimizer};
  if (has_values(gathered)) c.series.push_back(gathered);
  explain_marks(rows, c);
  out.plots.push_back(make_plot("model_state.svg", "Model state per rank", std::move(c), true, true));
}

void breakdown_plot(const std::vector<TrainingRow>& rows, const Naming& naming, PlotSet& out) {
  ChartSpec c{"Step time breakdown (mean over repeats)", "configuration", "ms per step", {}, {}};
  ChartSeries data{"data", {}, {}, false, -1}, fwd{"forward+backward", {}, {}, false, -1},
      opt{"optimizer", {}, {}, false, -1}, other{"other (step − parts)", {}, {}, false, -1};
  std::string without;
  for (const auto& r : rows) {
    // Only what was measured: a configuration without its parts is left out, never drawn as "other".
    if (!r.data_ms.n || !r.forward_backward_ms.n || !r.optimizer_ms.n || !r.step_ms.n) {
      without += (without.empty() ? "" : ", ") + naming.category(r);
      continue;
    }
    c.categories.push_back(naming.category(r));
    data.values.push_back(r.data_ms.mean);
    fwd.values.push_back(r.forward_backward_ms.mean);
    opt.values.push_back(r.optimizer_ms.mean);
    double parts = r.data_ms.mean + r.forward_backward_ms.mean + r.optimizer_ms.mean;
    other.values.push_back(r.step_ms.mean > parts ? std::optional<double>(r.step_ms.mean - parts) : std::nullopt);
  }
  if (c.categories.empty()) {
    out.notes.push_back(
        "The step breakdown is not plotted: no configuration recorded its data, forward-backward "
        "and optimizer times.");
    return;
  }
  if (!without.empty()) {
    out.notes.push_back("The step breakdown leaves out " + without +
                        ": no data, forward-backward and optimizer times recorded.");
  }
  c.series = {data, fwd, opt};
  if (has_values(other)) c.series.push_back(other);
  explain_marks(rows, c);
  out.plots.push_back(make_plot("step_breakdown.svg", "Step time breakdown", std::move(c), true, true));
}

}  // namespace

PlotSet training_plots(const std::vector<const Group*>& groups) {
  PlotSet out;
  if (groups.empty()) return out;
  std::vector<TrainingRow> rows = training_rows(groups);
  Naming naming = naming_for(rows);
  std::vector<Line> lines = scaling_lines(rows, naming);
  tokens_plot(lines, out);
  memory_plot(lines, out);
  model_state_plot(rows, naming, out);
  breakdown_plot(rows, naming, out);
  return out;
}

}  // namespace mt
