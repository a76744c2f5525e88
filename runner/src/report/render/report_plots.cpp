#include "report/render/report_plots.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "experiment/metric_catalogue.h"
#include "report/model/model_state.h"
#include "report/model/per_step.h"
#include "report/render/series_names.h"
#include "report/sections/training_tables.h"
#include "stats.h"

namespace mt {
namespace {

// How charts name a group: by what tells it from the other groups plotted (series_names.h), the
// study whenever several are plotted, so that no two share a label.
struct Naming {
  std::map<const Group*, std::string> lines;       // ranks left out: a line runs over them
  std::map<const Group*, std::string> categories;  // ranks in: one bar per group
  std::set<const Group*> oversubscribed;
  std::string series(const Group& g) const { return lines.at(&g); }
  std::string category(const TrainingRow& r) const {
    return categories.at(r.group) + (oversubscribed.count(r.group) ? " ⚠" : "");
  }
};

Naming naming_for(const std::vector<TrainingRow>& rows) {
  std::vector<const Group*> groups;
  Naming n;
  for (const auto& r : rows) {
    groups.push_back(r.group);
    if (r.cores.oversubscribed()) n.oversubscribed.insert(r.group);
  }
  n.lines = distinct_names(groups, false);
  n.categories = distinct_names(groups, true);
  return n;
}

// Names for the configurations one chart shows: what tells them apart among themselves, so a chart
// of the engine's rows alone does not repeat the engine's study name in every label.
std::vector<std::string> shown_names(const std::vector<const TrainingRow*>& shown) {
  std::vector<const Group*> groups;
  for (const TrainingRow* r : shown) groups.push_back(r->group);
  const auto names = distinct_names(groups, true);
  std::vector<std::string> out;
  for (const TrainingRow* r : shown) out.push_back(names.at(r->group) + (r->cores.oversubscribed() ? " ⚠" : ""));
  return out;
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

// "throughput (tokens/s)": what an axis shows, in the catalogue's unit of the metric it plots.
std::string axis_title(const std::string& what, const std::string& metric) {
  const auto info = known_metric(metric);
  return info && !info->unit.empty() ? fmt::format("{} ({})", what, info->unit) : what;
}

Plot make_plot(const char* file, const char* caption, ChartSpec chart, bool bars, bool stacked) {
  std::string svg = bars ? bar_chart_svg(chart, stacked) : line_chart_svg(chart);
  return {file, caption, std::move(chart), std::move(svg)};
}

// At one rank count there is nothing to draw a line over: one bar per configuration instead.
void tokens_bars(const std::vector<TrainingRow>& rows, int ranks, PlotSet& out) {
  ChartSpec c{fmt::format("Throughput per configuration at {} rank{} (mean ± std)", ranks, ranks == 1 ? "" : "s"),
              "configuration",
              axis_title("throughput", "tokens_per_sec"),
              {},
              {}};
  ChartSeries s{"tokens/s, mean ± std over repeats", {}, {}, false, 0};
  std::vector<const TrainingRow*> shown;
  for (const auto& r : rows) {
    if (!r.tokens_per_sec.n) continue;
    shown.push_back(&r);
    s.values.push_back(r.tokens_per_sec.mean);
    s.errors.push_back(r.tokens_per_sec.std);
  }
  c.categories = shown_names(shown);
  c.series.push_back(std::move(s));
  c.log_y = spans_decades(c);
  explain_marks(rows, c);
  out.plots.push_back(make_plot("tokens_per_sec.svg", "Throughput per configuration", std::move(c), true, false));
}

void tokens_plot(const std::vector<Line>& lines, const std::vector<TrainingRow>& rows, const Naming& naming,
                 PlotSet& out) {
  std::vector<int> ranks = rank_counts(lines);
  if (ranks.size() == 1) return tokens_bars(rows, ranks.front(), out);
  ChartSpec c{"", "ranks (processes)", axis_title("throughput", "tokens_per_sec"), rank_categories(lines, ranks), {}};
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
  c.log_y = spans_decades(c);
  if (ideal_withheld) {
    out.notes.push_back(
        "Throughput vs ranks draws no ideal-scaling line where the ranks shared the cores of the 1-rank run or "
        "oversubscribed them: ideal scaling there is not ranks × the 1-rank throughput.");
  }
  out.plots.push_back(make_plot("tokens_per_sec.svg", "Throughput vs ranks", std::move(c), false, false));
}

// Peak RSS split into what the model state explains and the rest (the LibTorch runtime, activations,
// allocator caches): a peak of 500 MiB says little until one sees how little of it is the model.
void memory_plot(const std::vector<TrainingRow>& rows, const Naming& naming, PlotSet& out) {
  ChartSpec c{"Peak memory per rank: model state and the rest (mean over repeats)",
              "configuration",
              axis_title("peak RSS", "peak_memory_mb") + ", max over ranks",
              {},
              {}};
  ChartSeries state{"model state (parameters, gradients, optimizer)", {}, {}, false, 0},
      rest{"runtime, activations and caches (peak RSS − model state)", {}, {}, false, 7};
  std::string without;
  std::vector<const TrainingRow*> shown;
  for (const auto& r : rows) {
    if (!r.peak_memory_mb.n) {
      without += (without.empty() ? "" : ", ") + naming.category(r);
      continue;
    }
    shown.push_back(&r);
    c.categories.push_back("");
    const double model = r.model_state_mib.n ? std::min(r.model_state_mib.mean, r.peak_memory_mb.mean) : 0;
    state.values.push_back(r.model_state_mib.n ? std::optional<double>(model) : std::nullopt);
    rest.values.push_back(r.peak_memory_mb.mean - model);
  }
  if (c.categories.empty()) {
    out.notes.push_back("Peak memory is not plotted: no configuration recorded its peak RSS.");
    return;
  }
  if (!without.empty()) out.notes.push_back("Peak memory leaves out " + without + ": no peak RSS recorded.");
  c.categories = shown_names(shown);
  c.series = {state, rest};
  explain_marks(rows, c);
  out.plots.push_back(make_plot("peak_memory.svg", "Peak memory per configuration", std::move(c), true, true));
}

void model_state_plot(const std::vector<TrainingRow>& rows, PlotSet& out) {
  ChartSpec c{"Model state per rank (mean over repeats)", "configuration", "MiB held by one rank", {}, {}};
  ChartSeries parameters{"parameters", {}, {}, false, -1}, gradients{"gradients (peak)", {}, {}, false, -1},
      optimizer{"optimizer state", {}, {}, false, -1}, gathered{"gathered parameters", {}, {}, false, -1};
  std::vector<const TrainingRow*> shown;
  for (const auto& r : rows) {
    auto s = mean_model_state(*r.group);
    if (!s) continue;
    shown.push_back(&r);
    c.categories.push_back("");
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
  c.categories = shown_names(shown);
  c.series = {parameters, gradients, optimizer};
  if (has_values(gathered)) c.series.push_back(gathered);
  explain_marks(rows, c);
  out.plots.push_back(make_plot("model_state.svg", "Model state per rank", std::move(c), true, true));
}

void breakdown_plot(const std::vector<TrainingRow>& rows, const Naming& naming, PlotSet& out) {
  ChartSpec c{
      "Step time breakdown (mean over repeats)", "configuration", axis_title("time per step", "step_time_ms"), {}, {}};
  ChartSeries data{"data", {}, {}, false, -1}, fwd{"forward+backward (collectives inside it)", {}, {}, false, -1},
      opt{"optimizer", {}, {}, false, -1}, other{"other (step − parts)", {}, {}, false, -1};
  std::string without;
  std::vector<const TrainingRow*> shown;
  for (const auto& r : rows) {
    // Only what was measured: a configuration without its parts is left out, never drawn as "other".
    if (!r.data_ms.n || !r.forward_backward_ms.n || !r.optimizer_ms.n || !r.step_ms.n) {
      without += (without.empty() ? "" : ", ") + naming.category(r);
      continue;
    }
    shown.push_back(&r);
    c.categories.push_back("");
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
  c.categories = shown_names(shown);
  c.series = {data, fwd, opt};
  if (has_values(other)) c.series.push_back(other);
  explain_marks(rows, c);
  out.plots.push_back(make_plot("step_breakdown.svg", "Step time breakdown", std::move(c), true, true));
}

// One trial's step times: at each step the slowest rank (a step lasts as long as its slowest rank).
std::vector<double> slowest_rank_steps(const ReportTrial& t) {
  std::vector<double> out;
  for (const auto& rank : per_rank_series(t, "step_time_ms")) {
    if (out.size() < rank.size()) out.resize(rank.size(), 0);
    for (size_t i = 0; i < rank.size(); ++i) out[i] = std::max(out[i], rank[i]);
  }
  return out;
}

// Step time at every step, warmup shaded, one line per configuration (the mean over its repeats at
// each step): where a disturbed or drifting trial shows. One chart per warmup and step count.
void step_time_plots(const std::vector<TrainingRow>& rows, PlotSet& out) {
  struct Series {
    const TrainingRow* row;
    std::vector<double> sum;
    std::vector<int> count;
  };
  std::map<std::pair<int, size_t>, std::vector<Series>> by_window;  // (warmup, steps run) -> lines
  for (const auto& r : rows) {
    Series line{&r, {}, {}};
    int warmup = -1;
    size_t length = 0;
    for (const ReportTrial* t : r.group->succeeded) {
      const std::vector<double> steps = slowest_rank_steps(*t);
      const auto measured = t->metric("steps");
      if (steps.empty() || !measured || *measured > double(steps.size())) continue;
      if (warmup < 0) {
        warmup = int(steps.size()) - int(*measured);
        length = steps.size();
        line.sum.assign(length, 0);
        line.count.assign(length, 0);
      }
      for (size_t i = 0; i < steps.size() && i < length; ++i) {
        line.sum[i] += steps[i];
        ++line.count[i];
      }
    }
    if (warmup >= 0) by_window[{warmup, length}].push_back(std::move(line));
  }
  // Named among every configuration with a series, so that those split over charts keep what tells
  // them apart (the precision whose warmup differs).
  std::vector<const TrainingRow*> all;
  for (const auto& [window, lines] : by_window) {
    for (const auto& line : lines) all.push_back(line.row);
  }
  const std::vector<std::string> all_names = shown_names(all);
  std::map<const TrainingRow*, std::string> name_of;
  for (size_t i = 0; i < all.size(); ++i) name_of[all[i]] = all_names[i];
  // At most as many lines to a chart as the palette has colours, so that no two share one.
  constexpr size_t kLinesPerChart = 8;
  size_t charts = 0;
  for (const auto& [window, lines] : by_window) charts += (lines.size() + kLinesPerChart - 1) / kLinesPerChart;
  size_t index = 0;
  for (const auto& [window, lines] : by_window) {
    const auto [warmup, length] = window;
    const size_t parts = (lines.size() + kLinesPerChart - 1) / kLinesPerChart;
    for (size_t part = 0; part < parts; ++part) {
      std::string what =
          by_window.size() == 1 ? "" : fmt::format("{} warmup + {} measured", warmup, length - size_t(warmup));
      if (parts > 1) what += fmt::format("{}part {} of {}", what.empty() ? "" : ", ", part + 1, parts);
      ChartSpec c{
          fmt::format("Step time at every step{} (slowest rank; mean over repeats)", what.empty() ? "" : ", " + what),
          "step",
          axis_title("step time", "step_time_ms"),
          {},
          {}};
      for (size_t i = 0; i < length; ++i) c.categories.push_back(std::to_string(i + 1));
      for (size_t li = part * kLinesPerChart; li < lines.size() && li < (part + 1) * kLinesPerChart; ++li) {
        ChartSeries s{name_of.at(lines[li].row), {}, {}, false, int(li - part * kLinesPerChart)};
        for (size_t i = 0; i < length; ++i)
          s.values.push_back(lines[li].count[i] ? std::optional<double>(lines[li].sum[i] / lines[li].count[i])
                                                : std::nullopt);
        c.series.push_back(std::move(s));
      }
      if (warmup > 0) c.shade = ChartShade{0, size_t(warmup) - 1, "warmup"};
      c.log_y = spans_decades(c);
      explain_marks(rows, c);
      const std::string file = charts == 1 ? "step_times.svg" : fmt::format("step_times_{}.svg", ++index);
      const std::string caption = "Step time at every step" + (what.empty() ? "" : " (" + what + ")");
      std::string svg = line_chart_svg(c);
      out.plots.push_back({file, caption, std::move(c), std::move(svg)});
    }
  }
}

}  // namespace

PlotSet training_plots(const std::vector<const Group*>& groups) {
  PlotSet out;
  if (groups.empty()) return out;
  std::vector<TrainingRow> rows = training_rows(groups);
  Naming naming = naming_for(rows);
  std::vector<Line> lines = scaling_lines(rows, naming);
  tokens_plot(lines, rows, naming, out);
  memory_plot(rows, naming, out);
  model_state_plot(rows, out);
  breakdown_plot(rows, naming, out);
  step_time_plots(rows, out);
  return out;
}

}  // namespace mt
