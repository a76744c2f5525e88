#include "report/compare/history.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/compare/change_point.h"
#include "report/model/campaign_drift.h"
#include "report/model/contrast.h"
#include "report/sections/detail_table.h"
#include "report/model/groups.h"
#include "report/render/markdown_table.h"
#include "report/render/svg_chart.h"
#include "runner_error.h"

namespace mt {
namespace {

// One revision of the experiment's source: the campaigns run from it, in the order first run.
struct Revision {
  std::string commit;
  std::string first_created;
  std::vector<std::string> campaigns;
  std::string label() const { return short_revision(commit); }  // two dirty trees of one commit differ
  bool uncommitted() const { return commit.find('+') != std::string::npos; }
};

std::vector<Revision> revisions_of(const ReportData& data) {
  std::vector<Revision> out;
  for (const auto& c : data.campaigns) {  // oldest first
    auto it = std::find_if(out.begin(), out.end(), [&](const Revision& r) { return r.commit == c.source_revision; });
    if (it == out.end()) it = out.insert(out.end(), Revision{c.source_revision, c.created_at, {}});
    it->campaigns.push_back(c.id);
  }
  return out;
}

// "s ×1 (chunk=2)": a group's name, with the parameters outside its study's axes whose values differ
// between the study's groups (an experiment's default changed at some revision starts a new series).
std::map<const Group*, std::string> series_names(const std::vector<Group>& groups) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;  // study → parameter → values
  for (const auto& g : groups) {
    for (const auto& [name, value] : g.first().parameters.items()) values[g.study][name].insert(g.first().param(name));
  }
  std::map<const Group*, std::string> out;
  for (const auto& g : groups) {
    const auto& axes = g.first().axes;
    std::string extra;
    for (const auto& [name, seen] : values[g.study]) {
      if (seen.size() < 2 || name == "strategy" || name == "ranks" ||
          std::find(axes.begin(), axes.end(), name) != axes.end()) {
        continue;
      }
      extra += fmt::format("{}{}={}", extra.empty() ? "" : " ", name, g.first().param(name, "(not set)"));
    }
    out[&g] = extra.empty() ? group_name(g) : fmt::format("{} ({})", group_name(g), extra);
  }
  return out;
}

// One configuration's metric over the revisions.
struct Series {
  std::string name;
  const Group* group = nullptr;
  std::string metric;
  Better better = Better::Unknown;
  int decimals = 2;
  std::vector<std::vector<double>> values;  // per revision
  std::vector<Boundary> boundaries;
};

std::optional<std::string> default_metric(const Group& g) {
  std::optional<std::string> first;
  for (const auto& m : key_metrics(g, g)) {
    if (m.role != MetricRole::Tested || g.sample(m.name).values.empty()) continue;
    if (m.better != Better::Unknown) return m.name;
    if (!first) first = m.name;
  }
  return first;
}

std::vector<Series> build_series(const std::vector<Group>& groups, const std::vector<Revision>& revisions,
                                 const HistoryOptions& options) {
  std::map<std::string, std::size_t> revision_of;  // campaign → revision index
  for (std::size_t k = 0; k < revisions.size(); ++k) {
    for (const auto& id : revisions[k].campaigns) revision_of[id] = k;
  }
  const auto names = series_names(groups);
  std::vector<Series> out;
  for (const auto& g : groups) {
    std::optional<std::string> metric = options.metric ? options.metric : default_metric(g);
    if (!metric || g.sample(*metric).values.empty()) continue;
    Series s;
    s.name = names.at(&g);
    s.group = &g;
    s.metric = *metric;
    s.better = metric_direction(*metric, g, g);
    auto info = known_metric(*metric);
    s.decimals = info ? info->decimals : auto_decimals(mean(g.sample(*metric).values));
    s.values.resize(revisions.size());
    const Sample sample = g.sample(*metric);
    for (std::size_t i = 0; i < sample.values.size(); ++i) {
      s.values[revision_of.at(sample.trials[i]->campaign_id)].push_back(sample.values[i]);
    }
    s.boundaries = find_change_points(s.values, options.min_change);
    out.push_back(std::move(s));
  }
  return out;
}

std::string direction_word(double change, Better better) {
  if (better == Better::Unknown) return change > 0 ? "higher" : "lower";
  return (change > 0) == (better == Better::Higher) ? "better" : "worse";
}

std::string change_points_section(const std::vector<Series>& series, const std::vector<Revision>& revisions,
                                  int& count) {
  std::string lines;
  for (const auto& s : series) {
    for (const auto& b : s.boundaries) {
      if (!b.change_point) continue;
      ++count;
      lines += fmt::format("- {} — {}: changed at revision {} (after {}): {} ({}), p (Holm) {}\n", s.name, s.metric,
                           code(revisions[b.after].label()), code(revisions[b.before].label()),
                           signed_percent(*b.change), direction_word(*b.change, s.better), p_text(*b.adjusted_p));
    }
  }
  if (lines.empty()) return "No metric changed beyond noise between consecutive revisions.\n\n";
  return lines + "\n";
}

std::string series_table(const std::vector<Series>& series, const std::vector<Revision>& revisions) {
  MarkdownTable table({{"configuration"},
                       {"metric"},
                       {"revision"},
                       {"campaigns"},
                       {"n", Align::Right},
                       {"mean", Align::Right},
                       {"95 % CI", Align::Right},
                       {"change", Align::Right},
                       {"p (Holm)", Align::Right},
                       {"change point"}});
  for (const auto& s : series) {
    for (std::size_t k = 0; k < revisions.size(); ++k) {
      const Summary sum = summarize(s.values[k]);
      if (sum.n == 0) continue;
      const Boundary* b = nullptr;
      for (const auto& boundary : s.boundaries) {
        if (boundary.after == k) b = &boundary;
      }
      std::string campaigns;
      for (const auto& id : revisions[k].campaigns) campaigns += (campaigns.empty() ? "" : ", ") + code(id);
      table.add_row({s.name, s.metric, code(revisions[k].label()), campaigns, std::to_string(sum.n),
                     fixed(sum.mean, s.decimals), interval_cell(sum.ci95, s.decimals),
                     b && b->change ? signed_percent(*b->change) : "-",
                     b && b->adjusted_p ? p_text(*b->adjusted_p) : "-",
                     b && b->change_point ? "**" + direction_word(*b->change, s.better) + "**" : ""});
    }
  }
  return table.render();
}

std::string history_chart(const std::vector<Series>& series, const std::vector<Revision>& revisions,
                          const std::string& experiment) {
  ChartSpec chart;
  std::set<std::string> metrics;
  for (const auto& s : series) metrics.insert(s.metric);
  const std::string metric = metrics.size() == 1 ? *metrics.begin() : "metric";
  auto info = known_metric(metric);
  chart.title = fmt::format("{} of {} by revision", info ? info->title : metric, experiment);
  chart.x_title = "revision (oldest first)";
  chart.y_title = info ? info->title : metric;
  for (const auto& r : revisions) chart.categories.push_back(r.label());
  for (const auto& s : series) {
    ChartSeries line;
    line.name = metrics.size() == 1 ? s.name : s.name + " " + s.metric;
    for (const auto& values : s.values) {
      const Summary sum = summarize(values);
      line.values.push_back(sum.n ? std::optional(sum.mean) : std::nullopt);
      line.errors.push_back(sum.ci95 ? (sum.ci95->high - sum.ci95->low) / 2 : 0);
    }
    chart.series.push_back(std::move(line));
  }
  // One revision is no trend: bars, not a line through a single column.
  chart.log_y = spans_decades(chart);
  return chart.categories.size() < 2 ? bar_chart_svg(chart, false) : line_chart_svg(chart);
}

std::set<std::string> metric_names(const std::vector<Group>& groups) {
  std::set<std::string> out;
  for (const auto& g : groups) {
    for (const ReportTrial* t : g.succeeded) {
      for (const auto& [name, value] : t->metrics) {
        if (is_measurement(name)) out.insert(name);
      }
    }
  }
  return out;
}

// "left out (3 of 12 attempts here)": how many successful attempts the means do without.
std::string disturbed_attempts_word(const std::vector<ReportTrial>& trials, bool keep_disturbed) {
  const std::string word = keep_disturbed ? "kept in" : "left out";
  std::size_t succeeded = 0;
  std::size_t disturbed = 0;
  for (const auto& t : trials) {
    if (!t.succeeded()) continue;
    ++succeeded;
    if (t.disturbed()) ++disturbed;
  }
  if (disturbed == 0) return word;
  return fmt::format("{} ({} of {} successful attempt{} here)", word, disturbed, succeeded, succeeded == 1 ? "" : "s");
}

// Configurations that ran only on a disturbed machine have no series; each is named rather than missing.
std::string disturbed_configurations(const std::vector<ReportTrial>& trials) {
  std::string out;
  for (const auto& g : disturbed_groups(trials)) {
    out += fmt::format(
        "- {}: every one of its {} successful attempt{} ran on a disturbed machine; it has no series "
        "(`--keep-disturbed` averages them in, `mtrun rerun --disturbed` measures them again).\n",
        code(g.name()), g.disturbed.size(), g.disturbed.size() == 1 ? "" : "s");
  }
  return out;
}

}  // namespace

RenderedHistory render_history(const ReportData& data, const HistoryOptions& options) {
  const std::vector<Revision> revisions = revisions_of(data);
  const bool keep_disturbed = data.keep_disturbed || options.keep_disturbed;
  const std::vector<Group> groups = group_trials(data.trials, keep_disturbed);
  const std::vector<Series> series = build_series(groups, revisions, options);
  const std::string experiment = data.campaigns.front().experiment;
  if (options.metric && series.empty()) {
    // Named against every successful attempt: a metric recorded only on a disturbed machine exists.
    const std::set<std::string> recorded = metric_names(group_trials(data.trials, true));
    if (!recorded.count(*options.metric)) {
      throw RunnerError(kExitUsage, fmt::format("no configuration of experiment '{}' has metric '{}' (it has: {})",
                                                experiment, *options.metric, fmt::join(recorded, ", ")));
    }
  }
  RenderedHistory out;
  std::string md = fmt::format("# History of {}\n\n", code(experiment));
  const bool uncommitted =
      std::any_of(revisions.begin(), revisions.end(), [](const Revision& r) { return r.uncommitted(); });
  md += fmt::format(
      "{} campaign{} at {} revision{}, oldest first (a revision's place is when its first campaign was created){}. "
      "Attempts on a disturbed machine are {}, as in reports. A change point is a boundary between "
      "consecutive revisions whose samples differ by Welch's t-test, p corrected over the configuration's "
      "boundaries (Holm) below {:.2f}, by at least {:g} % of the earlier mean (docs/measurement.md).\n\n",
      data.campaigns.size(), data.campaigns.size() == 1 ? "" : "s", revisions.size(), revisions.size() == 1 ? "" : "s",
      uncommitted ? "; a revision with uncommitted changes is its commit + the hash of its diff" : "",
      disturbed_attempts_word(data.trials, keep_disturbed), kNoiseThreshold, options.min_change * 100);
  md += "## Change points\n\n" + change_points_section(series, revisions, out.change_points);
  // A campaign that drifted as it ran moves its revision's mean by when its attempts ran.
  std::string drifted;
  for (const auto& d : campaign_drifts(group_pointers(groups))) {
    if (d.marked()) drifted += fmt::format("- {}: {}\n", kCampaignDriftMark, campaign_drift_text(d, true));
  }
  if (!drifted.empty()) {
    md +=
        "Campaigns whose every configuration drifted as they ran (docs/measurement.md): their revisions' means "
        "depend on when their attempts ran, and so may a change point beside them.\n\n" +
        drifted + "\n";
  }
  md += "## Every revision\n\n";
  const std::string left_out = keep_disturbed ? "" : disturbed_configurations(data.trials);
  if (series.empty()) {
    md += left_out.empty() ? "No configuration has successful trials.\n"
                           : "No configuration has successful trials on a quiet machine.\n";
  } else {
    md += series_table(series, revisions);
  }
  if (!left_out.empty()) md += "\n" + left_out;
  out.markdown = md;
  if (!series.empty()) out.svg = history_chart(series, revisions, experiment);
  return out;
}

}  // namespace mt
