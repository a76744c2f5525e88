#include "report/model/answers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/expression.h"
#include "experiment/metric_catalogue.h"
#include "experiment/question_loader.h"
#include "report/model/contrast.h"

namespace mt {
namespace {

// What one side of a comparison is made of: a group, or one row of a group's results (an
// operation at a message size), with the metric's value from each of its trials.
struct Cell {
  const Group* group = nullptr;
  std::map<std::string, std::string> row;  // the row's coordinates; empty for a per-trial metric
  std::vector<double> values;
};

std::string json_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<long long>(d));
  }
  return v.dump();
}

bool is_row_axis(const std::string& name) {
  const auto& rows = result_row_axes();
  return std::find(rows.begin(), rows.end(), name) != rows.end();
}

// The metric in `group`: one cell when its trials record it, else one per distinct row coordinates
// of its result rows that carry it.
std::vector<Cell> cells_of(const Group& group, const std::string& metric) {
  Sample s = group.sample(metric);
  if (!s.values.empty()) return {{&group, {}, std::move(s.values)}};
  std::vector<Cell> out;
  std::map<std::map<std::string, std::string>, std::size_t> index;
  for (const ReportTrial* t : group.succeeded) {
    std::set<std::map<std::string, std::string>> seen;  // one value per trial and row
    for (const auto& row : t->rows) {
      if (!row.is_object() || !row.contains(metric) || !row[metric].is_number()) continue;
      std::map<std::string, std::string> coords;
      for (const auto& axis : result_row_axes()) {
        if (row.contains(axis) && !row[axis].is_null()) coords[axis] = json_text(row[axis]);
      }
      if (!seen.insert(coords).second) continue;
      auto [it, fresh] = index.try_emplace(coords, out.size());
      if (fresh) out.push_back({&group, coords, {}});
      out[it->second].values.push_back(row[metric].get<double>());
    }
  }
  return out;
}

// A trial's value of an axis (its study, ranks, strategy or parameter); "" when it has none.
std::string trial_value(const ReportTrial& t, const std::string& axis) {
  if (axis == kStudyAxis) return t.study;
  if (axis == "ranks") return std::to_string(t.ranks);
  if (axis == "strategy" && !t.strategy.empty()) return t.strategy;
  return t.param(axis);
}

// A cell's value of an axis: its result row's, else its group's (as any of its trials gives it); ""
// when it has none.
std::string value_of(const Cell& c, const std::string& axis) {
  if (auto it = c.row.find(axis); it != c.row.end()) return it->second;
  if (is_row_axis(axis) && !c.row.empty()) return "";
  return trial_value(c.group->first(), axis);
}

bool compatible(const Cell& a, const Cell& b, const std::string& axis) {
  const std::string va = value_of(a, axis), vb = value_of(b, axis);
  return va.empty() || vb.empty() || va == vb;
}

// The axes that tell `c` from other cells: its study's axes and its row's coordinates.
std::vector<std::string> own_axes(const Cell& c) {
  std::vector<std::string> out = c.group->first().axes;
  if (std::find(out.begin(), out.end(), "ranks") == out.end()) out.push_back("ranks");
  for (const auto& [axis, v] : c.row) out.push_back(axis);
  return out;
}

// Baseline cells that stand for the same configuration as `c`: the compatible ones, narrowed to
// the same study, the same row and then the same value of every other axis of c, as far as needed.
std::vector<const Cell*> baseline_for(const Cell& c, const Question& q, const std::vector<const Cell*>& base) {
  std::vector<const Cell*> out;
  for (const Cell* b : base) {
    bool ok = true;
    for (const auto& w : q.within) ok = ok && compatible(c, *b, w);
    if (ok) out.push_back(b);
  }
  auto narrow = [&out](auto same) {
    if (out.size() < 2) return;
    std::vector<const Cell*> kept;
    std::copy_if(out.begin(), out.end(), std::back_inserter(kept), same);
    if (!kept.empty()) out = std::move(kept);
  };
  if (q.compare != kStudyAxis) narrow([&c](const Cell* b) { return b->group->study == c.group->study; });
  narrow([&c](const Cell* b) { return b->row == c.row; });
  for (const auto& axis : own_axes(c)) {
    if (axis == q.compare) continue;
    narrow([&](const Cell* b) { return value_of(*b, axis) == value_of(c, axis); });
  }
  return out;
}

// Whether what `value` describes (a cell, a trial) is among the configurations a question looks at
// (its `where`); one without a value for an axis the expression names is not.
template <typename Value>
bool selected_by(const std::optional<Expression>& where, Value value) {
  if (!where) return true;
  std::string error;
  const auto result = where->evaluate(
      [&value](const std::string& axis) -> std::optional<std::string> {
        std::string v = value(axis);
        if (v.empty()) return std::nullopt;
        return v;
      },
      error);
  return result && result->truthy();
}

bool selected(const Cell& c, const std::optional<Expression>& where) {
  return selected_by(where, [&c](const std::string& axis) { return value_of(c, axis); });
}

// Why `c` has no baseline, from every trial the campaigns planned (`planned`): what became of those
// that would have been it (failed, ran on a disturbed machine, recorded no value of the metric), or
// that there are none (the experiment's `where` or `exclude`, or the question's `where`). Where the
// compared axis is a result row's, trials cannot tell: the reason stays general.
std::string missing_baseline(const Cell& c, const Question& q, const std::optional<Expression>& where,
                             const std::string& label, const std::vector<ReportTrial>* planned) {
  if (!planned || is_row_axis(q.compare)) {
    return fmt::format("{}: no {} configuration to compare with", label, q.baseline);
  }
  int failed = 0, disturbed = 0, without_value = 0;
  for (const ReportTrial& t : *planned) {
    const auto value = [&t](const std::string& axis) { return trial_value(t, axis); };
    if (value(q.compare) != q.baseline || !selected_by(where, value)) continue;
    if (q.compare != kStudyAxis && t.study != c.group->study) continue;
    bool same = true;
    for (const auto& w : q.within) {
      const std::string mine = value_of(c, w), theirs = value(w);
      same = same && (mine.empty() || theirs.empty() || mine == theirs);
    }
    if (!same) continue;
    ++(!t.succeeded() ? failed : t.disturbed() ? disturbed : without_value);
  }
  const std::string baseline = fmt::format("{} = {}", q.compare, q.baseline);
  if (failed + disturbed + without_value == 0) {
    return fmt::format("{}: no configuration with {} ran there (the experiment's `where` or `exclude`{})", label,
                       baseline, q.where.empty() ? "" : ", or the question's `where`");
  }
  std::vector<std::string> what;
  if (failed) what.push_back(fmt::format("{} did not succeed", failed));
  if (disturbed) what.push_back(fmt::format("{} ran on a disturbed machine", disturbed));
  if (without_value) what.push_back(fmt::format("{} recorded no {}", without_value, q.metric));
  const int trials = failed + disturbed + without_value;
  return fmt::format("{}: nothing to compare with: of the {} trial{} with {} there, {}", label, trials,
                     trials == 1 ? "" : "s", baseline, fmt::join(what, ", "));
}

std::string compare_text(const Question& q, const std::string& value) {
  if (q.compare == kStudyAxis || q.compare == "strategy") return fmt::format("{} vs {}", value, q.baseline);
  return fmt::format("{} = {} vs {}", q.compare, value, q.baseline);
}

// Axes beside `within` whose values tell apart answers that would otherwise read the same.
std::vector<std::string> distinguishing_axes(const Question& q, const std::vector<const Cell*>& compared) {
  std::set<std::string> candidates;
  for (const Cell* c : compared) {
    for (const auto& a : own_axes(*c)) candidates.insert(a);
  }
  candidates.insert(kStudyAxis);
  std::vector<std::string> out;
  for (const auto& axis : candidates) {
    if (axis == q.compare || std::find(q.within.begin(), q.within.end(), axis) != q.within.end()) continue;
    std::map<std::string, std::set<std::string>> values;  // compare and within values -> this axis's
    for (const Cell* c : compared) {
      std::string key = value_of(*c, q.compare);
      for (const auto& w : q.within) key += '\x1f' + value_of(*c, w);
      values[key].insert(value_of(*c, axis));
    }
    if (std::any_of(values.begin(), values.end(), [](const auto& kv) { return kv.second.size() > 1; }))
      out.push_back(axis);
  }
  return out;
}

std::string label_of(const Cell& c, const Question& q, const std::vector<std::string>& extra) {
  std::string out = compare_text(q, value_of(c, q.compare));
  std::vector<std::string> axes = q.within;
  axes.insert(axes.end(), extra.begin(), extra.end());
  for (const auto& axis : axes) {
    const std::string v = value_of(c, axis);
    if (!v.empty()) out += fmt::format(", {} = {}", axis, v);
  }
  return out;
}

// Parameter names on which two groups differ, study included.
std::vector<std::string> differences(const std::vector<const Cell*>& cells) {
  std::set<std::string> out;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    const auto a = effective_configuration(*cells[0]->group), b = effective_configuration(*cells[i]->group);
    std::map<std::string, std::string> ma(a.begin(), a.end()), mb(b.begin(), b.end());
    for (const auto& [k, v] : ma)
      if (!mb.count(k) || mb[k] != v) out.insert(k);
    for (const auto& [k, v] : mb)
      if (!ma.count(k)) out.insert(k);
    if (cells[0]->group->study != cells[i]->group->study) out.insert(kStudyAxis);
  }
  return {out.begin(), out.end()};
}

// Whether these cells stand for one configuration: the same row and the same resolved parameters.
bool same_configuration(const std::vector<const Cell*>& cells) {
  const auto first = effective_configuration(*cells.front()->group);
  return std::all_of(cells.begin(), cells.end(), [&](const Cell* c) {
    return c->row == cells.front()->row && effective_configuration(*c->group) == first;
  });
}

bool is_speed(const std::string& metric) {
  if (auto info = known_metric(metric)) {
    return info->unit == "tokens/s" || info->unit == "ms" || info->unit == "µs" || info->unit == "GB/s";
  }
  auto ends = [&metric](const std::string& s) {
    return metric.size() >= s.size() && metric.compare(metric.size() - s.size(), s.size(), s) == 0;
  };
  return ends("_ms") || ends("_us") || ends("_s") || ends("per_sec") || ends("_gbps");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> effective_configuration(const Group& group) {
  const ReportTrial& t = group.first();
  std::map<std::string, std::string> config;
  for (const auto& [name, value] : t.parameters.items())
    config[name] = value.is_string() ? value.get<std::string>() : value.dump();
  if (t.result.is_object()) {
    for (auto& [name, value] : config) {
      auto it = t.result.find("resolved_" + name);
      if (it != t.result.end() && !it->is_null()) value = json_text(*it);
    }
  }
  const std::string accumulation = config.count("grad_accum_steps") ? config["grad_accum_steps"] : "1";
  if (group.ranks == 1 || accumulation == "1") config.erase("gradient_sync_mode");
  config["workload"] = group.workload;
  return {config.begin(), config.end()};
}

std::string answer_verdict(const std::string& metric, const std::string& better, std::optional<double> ratio,
                           std::optional<double> adjusted_p, bool enough_data) {
  if (!enough_data || !ratio || !adjusted_p) return "not enough data";
  if (*adjusted_p >= kNoiseThreshold) return "within noise";
  const bool higher = *ratio > 1;
  if (better != "higher" && better != "lower") return higher ? "higher" : "lower";
  const bool improved = higher == (better == "higher");
  if (is_speed(metric)) return improved ? "faster" : "slower";
  return improved ? "better" : "worse";
}

QuestionAnswers answer_question(const Question& q, const std::vector<const Group*>& groups,
                                const std::vector<ReportTrial>* planned) {
  QuestionAnswers out;
  out.question = q;
  std::optional<Expression> where;
  if (!q.where.empty()) {
    std::string error;
    int column = 0;
    where = Expression::parse(q.where, error, column);
    if (!where) {  // checked when the experiment was read: only a damaged record gets here
      out.skipped.push_back(fmt::format("where {} cannot be read: {}", q.where, error));
      return out;
    }
  }
  std::vector<Cell> cells;
  for (const Group* g : groups) {
    if (!q.study.empty() && g->study != q.study) continue;
    for (auto& c : cells_of(*g, q.metric)) {
      if (!value_of(c, q.compare).empty() && selected(c, where)) cells.push_back(std::move(c));
    }
  }
  std::vector<const Cell*> compared, base;
  for (const auto& c : cells) (value_of(c, q.compare) == q.baseline ? base : compared).push_back(&c);
  if (base.empty() && !compared.empty()) {
    // One reason, not one line per configuration: the baseline never ran in this campaign.
    out.skipped.push_back(fmt::format("every comparison: no configuration here has {} = {}", q.compare, q.baseline));
    return out;
  }
  const std::vector<std::string> extra = distinguishing_axes(q, compared);
  for (const Cell* c : compared) {
    const std::string label = label_of(*c, q, extra);
    std::vector<const Cell*> b = baseline_for(*c, q, base);
    if (b.empty()) {
      out.skipped.push_back(missing_baseline(*c, q, where, label, planned));
      continue;
    }
    Answer a;
    a.label = label;
    a.compared = value_of(*c, q.compare);
    a.metric = q.metric;
    a.sides.push_back(c->group);
    for (const Cell* x : b) a.sides.push_back(x->group);
    Cell pooled;
    if (b.size() > 1 && same_configuration(b)) {
      // Groups that ran the same thing (sync modes at one micro-batch a step, the same point in two
      // studies) are one baseline: their values are pooled.
      pooled = {b.front()->group, b.front()->row, {}};
      for (const Cell* x : b) pooled.values.insert(pooled.values.end(), x->values.begin(), x->values.end());
      a.note = fmt::format("baseline: {} groups that ran the same configuration, pooled", b.size());
      b = {&pooled};
    }
    if (b.size() > 1) {
      a.verdict = "not comparable";
      std::vector<std::string> diff = differences(b);
      std::string list;
      for (const auto& d : diff) list += (list.empty() ? "" : ", ") + d;
      a.note = fmt::format("{} baseline configurations match (they differ in {}): name it in within", b.size(),
                           list.empty() ? "their rows" : list);
      out.answers.push_back(std::move(a));
      continue;
    }
    const Cell& base_cell = *b.front();
    if (c->row == base_cell.row && c->group->study == base_cell.group->study &&
        effective_configuration(*c->group) == effective_configuration(*base_cell.group)) {
      out.skipped.push_back(fmt::format("{}: the same resolved configuration", label));
      continue;
    }
    Contrast x = contrast(c->values, base_cell.values);
    a.a = x.a;
    a.b = x.b;
    a.ratio = x.ratio;
    a.test = x.test;
    a.ratio_ci = ratio_confidence_interval(c->values, base_cell.values);
    out.answers.push_back(std::move(a));
  }
  std::vector<double> p;
  for (const auto& a : out.answers) {
    if (a.test) p.push_back(a.test->p);
  }
  const std::vector<double> adjusted = holm_adjust(p);
  std::size_t k = 0;
  for (auto& a : out.answers) {
    if (a.verdict == "not comparable") continue;
    if (a.test) a.adjusted_p = adjusted[k++];
    a.verdict = answer_verdict(q.metric, q.better, a.ratio, a.adjusted_p, a.a.n >= 2 && a.b.n >= 2);
  }
  out.tested = int(p.size());
  return out;
}

std::vector<Question> default_questions(const std::vector<const Group*>& groups, const std::string& reference) {
  std::vector<Question> out;
  std::vector<std::string> kinds;
  for (const Group* g : groups) {
    if (std::find(kinds.begin(), kinds.end(), g->kind) == kinds.end()) kinds.push_back(g->kind);
  }
  for (const auto& kind : kinds) {
    std::vector<const Group*> of;
    for (const Group* g : groups) {
      if (g->kind == kind) of.push_back(g);
    }
    // The metric: tokens/s for training, else the first catalogue metric every group records.
    std::string metric = kind == "train" ? "tokens_per_sec" : "";
    if (metric.empty()) {
      for (const auto& m : metric_catalogue()) {
        if (std::all_of(of.begin(), of.end(), [&m](const Group* g) { return !g->sample(m.name).values.empty(); })) {
          metric = m.name;
          break;
        }
      }
    }
    if (metric.empty()) continue;
    const std::string better = better_text(known_metric(metric) ? known_metric(metric)->better : Better::Unknown);
    std::set<std::string> strategies;
    std::set<int> ranks;
    std::vector<std::string> axes;  // every axis of these groups, in order of first appearance
    for (const Group* g : of) {
      if (!g->strategy.empty()) strategies.insert(g->strategy);
      ranks.insert(g->ranks);
      for (const auto& a : g->first().axes) {
        if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
      }
    }
    auto others = [&](const std::string& compared) {
      std::vector<std::string> w;
      for (const auto& a : axes) {
        if (a == compared) continue;
        if ((a == "strategy" && strategies.size() < 2) || (a == "ranks" && ranks.size() < 2)) continue;
        w.push_back(a);
      }
      // Strategy and ranks vary across studies without being an axis of any one of them.
      if (compared != "strategy" && strategies.size() > 1 && std::find(w.begin(), w.end(), "strategy") == w.end())
        w.insert(w.begin(), "strategy");
      if (compared != "ranks" && ranks.size() > 1 && std::find(w.begin(), w.end(), "ranks") == w.end())
        w.insert(w.begin(), "ranks");
      return w;
    };
    if (strategies.size() > 1 && strategies.count(reference)) {
      out.push_back({metric, "strategy", reference, others("strategy"), better, "", {}, ""});
    }
    if (ranks.size() > 1) {
      out.push_back({metric, "ranks", std::to_string(*ranks.begin()), others("ranks"), better, "", {}, ""});
    }
  }
  return out;
}

}  // namespace mt
