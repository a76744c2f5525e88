#include "experiment/question_loader.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/expression.h"
#include "experiment/expression_reader.h"
#include "experiment/metric_catalogue.h"
#include "experiment/suggestion.h"
#include "experiment/workload_params.h"

namespace mt {
namespace {

const std::vector<std::string> kQuestionKeys = {"metric", "compare", "baseline", "within", "where", "better"};

// The studies a question is asked of.
std::vector<const Study*> scoped_studies(const Experiment& experiment, const Study* scope) {
  if (scope) return {scope};
  std::vector<const Study*> out;
  for (const auto& s : experiment.studies) out.push_back(&s);
  return out;
}

// Every value `axis` takes in `study` as written (axes, zip groups, defaults, include lists), with
// the values a study that does not set ranks or a training strategy runs with; empty when the
// study does not know the axis.
std::set<std::string> values_in(const Study& study, const std::string& axis) {
  std::set<std::string> out;
  if (axis == kStudyAxis) return {study.name};
  for (const auto& a : study.axes) {
    if (a.name == axis)
      for (const auto& v : a.values) out.insert(v.text);
  }
  for (const auto& z : study.zips) {
    for (const auto& a : z.axes) {
      if (a.name == axis)
        for (const auto& v : a.values) out.insert(v.text);
    }
  }
  for (const auto& d : study.defaults) {
    if (d.name == axis) out.insert(d.value.text);
  }
  for (const auto& assignment : study.include) {
    for (const auto& s : assignment.values) {
      if (s.name == axis) out.insert(s.value.text);
    }
  }
  if (out.empty() && axis == "ranks") out.insert("1");
  if (out.empty() && axis == kStrategyParam && !param_default(study.workload, axis).empty())
    out.insert(param_default(study.workload, axis));
  return out;
}

bool is_row_axis(const std::string& axis) {
  const auto& rows = result_row_axes();
  return std::find(rows.begin(), rows.end(), axis) != rows.end();
}

// Names a question may use as an axis in these studies, for "did you mean".
std::vector<std::string> axis_names(const std::vector<const Study*>& studies) {
  std::set<std::string> names = {kStudyAxis, "ranks"};
  for (const Study* s : studies) {
    for (const auto& a : s->axes) names.insert(a.name);
    for (const auto& z : s->zips)
      for (const auto& a : z.axes) names.insert(a.name);
    for (const auto& d : s->defaults) names.insert(d.name);
    if (s->workload == "train") names.insert("strategy");
  }
  for (const auto& r : result_row_axes()) names.insert(r);
  return {names.begin(), names.end()};
}

std::set<std::string> all_values(const std::vector<const Study*>& studies, const std::string& axis) {
  std::set<std::string> out;
  for (const Study* s : studies) {
    for (auto& v : values_in(*s, axis)) out.insert(v);
  }
  return out;
}

// The direction a `command` study of these declared for `metric`: "higher", "lower" or "".
std::string declared_direction(const std::vector<const Study*>& studies, const std::string& metric) {
  for (const Study* s : studies) {
    for (const auto& m : s->metrics) {
      if (m.name == metric && !m.better.empty()) return m.better;
    }
  }
  return "";
}

// Metric names a question may use for "did you mean": those mtrun knows and those the studies declare.
std::vector<std::string> metric_names(const std::vector<const Study*>& studies) {
  std::set<std::string> names;
  for (const MetricInfo& m : metric_catalogue()) names.insert(m.name);
  for (const Study* s : studies) {
    for (const auto& m : s->metrics) names.insert(m.name);
  }
  return {names.begin(), names.end()};
}

// Checks an axis name; returns false (after an error) when no study of these knows it.
bool check_axis(YamlReader& r, const YAML::Node& node, const std::string& axis,
                const std::vector<const Study*>& studies, const std::string& what) {
  if (axis == kStudyAxis || is_row_axis(axis) || !all_values(studies, axis).empty()) return true;
  r.error(pos_of(node),
          fmt::format("{} '{}' is not an axis of {}{}", what, axis,
                      studies.size() == 1 ? fmt::format("study '{}'", studies.front()->name) : std::string("any study"),
                      did_you_mean(axis, axis_names(studies))));
  return false;
}

// A question's `where`: an expression whose every name is an axis of these studies.
void read_where(YamlReader& r, const YAML::Node& node, const std::vector<const Study*>& studies,
                const std::string& what, Question& q) {
  auto e = read_expression(r, node, what + " where");
  if (!e) return;
  std::string error;
  int column = 0;
  bool known = true;
  for (const auto& name : Expression::parse(e->text, error, column)->names())
    known = check_axis(r, node, name, studies, what + " where") && known;
  if (known) q.where = e->text;
}

std::optional<Question> read_question(YamlReader& r, const YAML::Node& node, const std::vector<const Study*>& studies,
                                      const Study* scope, int index) {
  const std::string what = fmt::format("question #{}", index + 1);
  if (!r.check_map(node, what, kQuestionKeys)) return std::nullopt;
  Question q;
  q.pos = pos_of(node);
  q.study = scope ? scope->name : "";
  bool complete = true;
  for (const char* key : {"metric", "compare", "baseline"}) {
    if (!node[key]) {
      r.error(q.pos, fmt::format("{} needs '{}' (metric, compare, baseline; within, where and better are optional)",
                                 what, key));
      complete = false;
    }
  }
  if (node["metric"]) q.metric = r.scalar(node["metric"], what + " metric").value_or("");
  if (node["compare"]) q.compare = r.scalar(node["compare"], what + " compare").value_or("");
  if (node["baseline"]) q.baseline = r.scalar(node["baseline"], what + " baseline").value_or("");
  if (node["within"]) q.within = r.string_list(node["within"], what + " within");
  if (node["where"]) read_where(r, node["where"], studies, what, q);
  if (node["better"]) {
    if (auto b = r.scalar(node["better"], what + " better")) {
      if (!better_from_text(*b)) {
        r.error(pos_of(node["better"]),
                fmt::format("{} better must be 'higher' or 'lower' (which way is an improvement), not '{}'", what, *b));
      } else {
        q.better = *b;
      }
    }
  }
  if (!complete) return std::nullopt;

  if (!q.compare.empty() && check_axis(r, node["compare"], q.compare, studies, what + " compare") &&
      q.compare != kStudyAxis && !is_row_axis(q.compare)) {
    const std::set<std::string> values = all_values(studies, q.compare);
    if (!values.count(q.baseline)) {
      std::vector<std::string> list(values.begin(), values.end());
      r.error(pos_of(node["baseline"]), fmt::format("{} baseline '{}' is not a value of '{}' (its values: {})", what,
                                                    q.baseline, q.compare, fmt::join(list, ", ")));
    } else if (values.size() < 2) {
      r.error(pos_of(node["compare"]), fmt::format("{} compares '{}', which takes only the value '{}': nothing to "
                                                   "compare it with",
                                                   what, q.compare, q.baseline));
    }
  } else if (q.compare == kStudyAxis) {
    std::vector<std::string> names;
    for (const Study* s : studies) names.push_back(s->name);
    if (std::find(names.begin(), names.end(), q.baseline) == names.end()) {
      r.error(pos_of(node["baseline"]), fmt::format("{} baseline '{}' is not a study (studies: {}){}", what, q.baseline,
                                                    fmt::join(names, ", "), did_you_mean(q.baseline, names)));
    } else if (names.size() < 2) {
      r.error(pos_of(node["compare"]),
              fmt::format("{} compares studies, but it is asked of study '{}' alone", what, names.front()));
    }
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < q.within.size(); ++i) {
    const YAML::Node at = node["within"].IsSequence() ? node["within"][i] : node["within"];
    const std::string& axis = q.within[i];
    if (axis == q.compare) {
      r.error(pos_of(at), fmt::format("{} within lists '{}', the axis it compares", what, axis));
    } else if (!seen.insert(axis).second) {
      r.error(pos_of(at), fmt::format("{} within lists '{}' twice", what, axis));
    } else {
      check_axis(r, at, axis, studies, what + " within");
    }
  }

  std::string known;
  if (auto info = known_metric(q.metric)) known = better_text(info->better);
  if (known.empty()) known = declared_direction(studies, q.metric);
  if (known.empty() && q.better.empty()) {
    r.error(pos_of(node["metric"]),
            fmt::format("{}: which way is better for metric '{}' is not known{}: add better: higher or better: lower",
                        what, q.metric, did_you_mean(q.metric, metric_names(studies))));
  } else if (!known.empty() && !q.better.empty() && known != q.better) {
    r.error(pos_of(node["better"]), fmt::format("{} says better: {}, but {} is better for metric '{}'; drop better",
                                                what, q.better, known, q.metric));
  }
  if (q.better.empty()) q.better = known;
  return q;
}

}  // namespace

const std::vector<std::string>& result_row_axes() {
  static const std::vector<std::string> axes = {"operation", "bytes", "in_place", "split", "dtype"};
  return axes;
}

void read_questions(YamlReader& r, const YAML::Node& node, const Experiment& experiment, const Study* scope,
                    std::vector<Question>& out) {
  if (!node.IsSequence() || node.size() == 0) {
    r.error(pos_of(node), "questions must be a non-empty list of {metric, compare, baseline, within}");
    return;
  }
  const std::vector<const Study*> studies = scoped_studies(experiment, scope);
  if (studies.empty()) return;
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (auto q = read_question(r, node[i], studies, scope, int(i))) out.push_back(std::move(*q));
  }
}

}  // namespace mt
