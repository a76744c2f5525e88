#include "experiment/matrix.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "experiment/command_template.h"
#include "experiment/expression.h"
#include "experiment/identity.h"
#include "launch/launcher.h"
#include "experiment/workload_checks.h"

namespace mt {
namespace {

// One combination of parameter values; each value remembers where in the file it was set.
using Combination = std::map<std::string, Value>;

std::string canonical_text(const Trial& t) {
  std::string text = fmt::format("study={}\nworkload={}\n", t.study, t.workload);
  for (const auto& p : t.params) text += fmt::format("{}={}\n", p.name, p.value);
  for (const auto& a : t.engine_args) text += fmt::format("arg={}\n", a);
  for (const auto& e : t.environment) text += fmt::format("env.{}={}\n", e.name, e.value);
  for (const auto& word : t.command) text += fmt::format("command={}\n", word);
  if (!t.command.empty()) text += fmt::format("launch={}\n", t.command_uses_launcher ? "launcher" : "direct");
  for (const auto& m : t.metrics) text += fmt::format("metric={}|{}|{}\n", m.name, m.regex, m.json_path);
  return text;
}

// A dimension of the cross product: a single axis, or a zip group whose k-th points go together.
using Dimension = std::vector<Combination>;

std::vector<Dimension> dimensions_of(const Study& study) {
  std::vector<Dimension> dims;
  for (const auto& axis : study.axes) {
    Dimension d;
    for (const auto& v : axis.values) d.push_back({{axis.name, v}});
    dims.push_back(std::move(d));
  }
  for (const auto& zip : study.zips) {
    Dimension d(zip.axes.front().values.size());
    for (const auto& axis : zip.axes) {
      for (size_t k = 0; k < d.size() && k < axis.values.size(); ++k) d[k][axis.name] = axis.values[k];
    }
    dims.push_back(std::move(d));
  }
  return dims;
}

std::vector<Combination> cross_product(const Combination& base, const std::vector<Dimension>& dims) {
  std::vector<Combination> out;
  std::vector<size_t> index(dims.size(), 0);
  while (true) {  // an odometer over the dimensions; the last one turns fastest
    Combination c = base;
    for (size_t d = 0; d < dims.size(); ++d) {
      for (const auto& [name, value] : dims[d][index[d]]) c[name] = value;
    }
    out.push_back(std::move(c));
    size_t d = dims.size();
    while (d > 0 && ++index[d - 1] == dims[d - 1].size()) {
      index[d - 1] = 0;
      --d;
    }
    if (d == 0) return out;
  }
}

bool matches(const Combination& c, const Assignment& a) {
  return std::all_of(a.values.begin(), a.values.end(), [&](const Setting& s) {
    auto it = c.find(s.name);
    return it != c.end() && it->second.text == s.value.text;
  });
}

bool same_values(const Combination& a, const Combination& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
           return x.first == y.first && x.second.text == y.second.text;
         });
}

struct StudyExpander {
  const Experiment& experiment;
  const Study& study;
  Expansion& result;
  // Combinations that survive exclude, where and the checks, with their derived values.
  std::vector<std::pair<Combination, std::vector<Param>>> kept = {};
  // The study's expressions, parsed once (the loader has already reported any that do not parse).
  std::vector<std::pair<const DerivedValue*, Expression>> derived_expressions = {};
  std::optional<Expression> where_expression = {};

  void parse_expressions() {
    std::string error;
    int column = 0;
    for (const auto& d : study.derived) {
      if (auto e = Expression::parse(d.expression.text, error, column)) derived_expressions.emplace_back(&d, *e);
    }
    if (study.where) where_expression = Expression::parse(study.where->text, error, column);
  }

  void error(SourcePos pos, std::string message) {
    Diagnostic d{experiment.file.string(), pos, std::move(message)};
    for (const auto& e : result.errors) {
      if (e.pos.line == d.pos.line && e.pos.column == d.pos.column && e.message == d.message) return;
    }
    result.errors.push_back(std::move(d));
  }

  std::vector<Combination> combinations() {
    Combination base;
    for (const auto& d : study.defaults) base[d.name] = d.value;
    std::vector<Combination> all;
    for (auto& c : cross_product(base, dimensions_of(study))) {
      bool excluded = std::any_of(study.exclude.begin(), study.exclude.end(), [&](const auto& a) { return matches(c, a); });
      if (excluded) {
        ++result.excluded;
      } else {
        all.push_back(std::move(c));
      }
    }
    for (const auto& inc : study.include) {
      Combination c = base;
      for (const auto& s : inc.values) c[s.name] = s.value;
      if (std::none_of(all.begin(), all.end(), [&](const auto& x) { return same_values(x, c); })) all.push_back(c);
    }
    return all;
  }

  // Adds derived values to `c` and applies the where filter; false when the trial is dropped.
  bool derive_and_filter(Combination& c, std::vector<Param>& derived) {
    Expression::Lookup lookup = [&](const std::string& name) -> std::optional<std::string> {
      auto it = c.find(name);
      if (it != c.end()) return it->second.text;
      for (const auto& d : derived) {
        if (d.name == name) return d.value;
      }
      return std::nullopt;
    };
    std::string error;
    for (const auto& [d, expression] : derived_expressions) {
      auto v = expression.evaluate(lookup, error);
      if (!v) {
        this->error(d->expression.pos, fmt::format("derived value '{}': {}", d->name, error));
        return false;
      }
      derived.push_back({d->name, v->to_param()});
    }
    if (!where_expression) return true;
    auto v = where_expression->evaluate(lookup, error);
    if (!v) {
      this->error(study.where->pos, fmt::format("where: {}", error));
      return false;
    }
    if (!v->truthy()) ++result.filtered;
    return v->truthy();
  }

  // Every {name} in a command template must be a parameter, derived value or built-in.
  void check_command_template(const Combination& c, const std::vector<Param>& derived) {
    for (const auto& word : study.command) {
      std::string problem;
      bool ok = expand_template(word.text, [&](const std::string& name) -> std::optional<std::string> {
                  bool known = c.count(name) || std::find(kTemplateBuiltins.begin(), kTemplateBuiltins.end(), name) !=
                                                     kTemplateBuiltins.end();
                  for (const auto& d : derived) known = known || d.name == name;
                  return known ? std::optional<std::string>("") : std::nullopt;
                }, problem).has_value();
      if (!ok) error(word.pos, "command: " + problem);
    }
  }

  Trial make_trial(const Combination& c, const std::vector<Param>& derived, int repeat) const {
    Trial t;
    t.study = study.name;
    t.workload = study.workload;
    t.repeat_index = repeat;
    t.timeout_s = study.timeout_s;
    for (const auto& [name, value] : c) {
      if (name.rfind("env.", 0) == 0) {
        t.environment.push_back({name.substr(4), value.text});
      } else {
        t.params.push_back({name, value.text});
      }
    }
    t.derived = derived;
    t.engine_args = study.engine_args;
    for (const auto& word : study.command) t.command.push_back(word.text);
    t.command_uses_launcher = study.command_uses_launcher;
    t.metrics = study.metrics;
    std::set<std::string> axes;
    auto add_axis = [&](const std::string& name) {
      if (axes.insert(name).second) t.axis_names.push_back(name);
    };
    for (const auto& axis : study.axes) add_axis(axis.name);
    for (const auto& zip : study.zips) {
      for (const auto& axis : zip.axes) add_axis(axis.name);
    }
    for (const auto& inc : study.include) {
      for (const auto& s : inc.values) add_axis(s.name);
    }
    t.ranks = std::stoi(t.param("ranks", "1"));
    std::string text = canonical_text(t);
    t.group_key = content_hash(text);
    t.identity = content_hash(text + fmt::format("repeat={}\n", repeat));
    return t;
  }

  // The study's trials of one repeat, in combination order; empty past the study's repeat count.
  std::vector<Trial> trials_of_repeat(int r) const {
    std::vector<Trial> out;
    if (r >= study.repeat) return out;
    for (const auto& [c, derived] : kept) out.push_back(make_trial(c, derived, r));
    return out;
  }

  void expand() {
    parse_expressions();
    for (auto& c : combinations()) {
      std::vector<Param> derived;
      if (!derive_and_filter(c, derived)) continue;
      auto problem = check_trial_params(study.workload, [&](const std::string& name) -> std::optional<std::string> {
        auto it = c.find(name);
        return it == c.end() ? std::nullopt : std::optional<std::string>(it->second.text);
      });
      if (!problem) {
        auto ranks = c.find("ranks");
        std::string why = launcher_rank_problem(experiment.launcher, ranks == c.end() ? 1 : std::stoi(ranks->second.text));
        if (!why.empty()) problem = TrialProblem{"ranks", why};
      }
      if (problem) {
        auto it = c.find(problem->blamed_param);
        error(it != c.end() ? it->second.pos : study.pos, problem->message);
        continue;
      }
      check_command_template(c, derived);
      kept.emplace_back(std::move(c), std::move(derived));
    }
    if (kept.empty() && result.errors.empty()) {
      error(study.pos, fmt::format("study '{}' has no trials left after exclude and where", study.name));
    }
  }
};

}  // namespace

std::string Trial::param(const std::string& name, const std::string& fallback) const {
  for (const auto& p : params) {
    if (p.name == name) return p.value;
  }
  return fallback;
}

std::string Trial::axes_label() const {
  std::string label;
  for (const auto& axis : axis_names) {
    if (!label.empty()) label += ' ';
    std::string value = param(axis);
    if (axis.rfind("env.", 0) == 0) {
      for (const auto& e : environment) {
        if ("env." + e.name == axis) value = e.value;
      }
    }
    label += fmt::format("{}={}", axis, value);
  }
  return label;
}

Expansion expand_experiment(const Experiment& experiment) {
  Expansion result;
  std::vector<StudyExpander> studies;
  int max_repeat = 0;
  for (const auto& study : experiment.studies) {
    studies.push_back(StudyExpander{experiment, study, result});
    studies.back().expand();
    max_repeat = std::max(max_repeat, study.repeat);
  }
  // Repeat-major across studies too: studies compared with each other (an engine and a peer
  // program) take turns, so neither gets the quieter half of the run.
  for (int r = 0; r < max_repeat; ++r) {
    for (const auto& s : studies) {
      for (auto& t : s.trials_of_repeat(r)) result.trials.push_back(std::move(t));
    }
  }
  return result;
}

std::string plan_hash(const std::vector<Trial>& trials) {
  std::string text;
  for (const auto& t : trials) text += t.identity + '\n';
  return content_hash(text);
}

}  // namespace mt
