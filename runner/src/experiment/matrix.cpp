#include "experiment/matrix.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/command_template.h"
#include "experiment/expression.h"
#include "experiment/run_order.h"
#include "experiment/identity.h"
#include "launch/launcher.h"
#include "experiment/workload_checks.h"

namespace mt {
namespace {

// One combination of parameter values; each value remembers where in the file it was set.
using Combination = std::map<std::string, Value>;

bool is_env(const std::string& name) { return name.rfind("env.", 0) == 0; }

// What a trial's identity hashes, in this order: study and workload, parameters by name, engine
// arguments, environment variables by name, and for `command` studies the argv template, launch
// mode and metric rules, one `key=value` line each; `profile=true` for profiled studies and
// `restart=MAX|RESUME` for restarted ones (other studies keep the identities they had before those
// existed); then `repeat=N`. All but the combination's
// values is the same for a whole study, so it is written once.
class IdentityText {
 public:
  explicit IdentityText(const Study& s) {
    head_ = fmt::format("study={}\nworkload={}\n", s.name, s.workload);
    for (const auto& a : s.engine_args) args_ += fmt::format("arg={}\n", a);
    for (const auto& word : s.command) tail_ += fmt::format("command={}\n", word.text);
    if (!s.command.empty()) tail_ += fmt::format("launch={}\n", s.command_uses_launcher ? "launcher" : "direct");
    for (const auto& m : s.metrics) tail_ += fmt::format("metric={}|{}|{}\n", m.name, m.regex, m.json_path);
    for (const auto& st : s.stages) tail_ += fmt::format("stage={}\n", stage_to_json(st.stage));
    if (s.profile) tail_ += "profile=true\n";
    if (s.restart.enabled()) tail_ += fmt::format("restart={}|{}\n", s.restart.max, s.restart.resume);
  }

  // Hash state of a combination's text: hash_hex of it is the trials' group key.
  std::uint64_t state_of(const Combination& c) const {
    std::uint64_t h = fnv1a(head_);
    for (const auto& [name, value] : c) {
      if (!is_env(name)) h = line(h, name, value.text);
    }
    h = fnv1a(args_, h);
    for (const auto& [name, value] : c) {
      if (is_env(name)) h = line(h, name, value.text);
    }
    return fnv1a(tail_, h);
  }

  static std::string identity(std::uint64_t state, int repeat) {
    return hash_hex(fnv1a(fmt::format("repeat={}\n", repeat), state));
  }

 private:
  static std::uint64_t line(std::uint64_t h, const std::string& name, const std::string& value) {
    return fnv1a("\n", fnv1a(value, fnv1a("=", fnv1a(name, h))));
  }
  std::string head_, args_, tail_;
};

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

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kSaturated / a ? kSaturated : a * b;
}
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return b > kSaturated - a ? kSaturated : a + b; }

std::string count_text(std::uint64_t n) { return n == kSaturated ? fmt::format("over {}", n) : std::to_string(n); }

// The most rounds a study may run: `repeat`, or up to an adaptive policy's `max`, which the limit
// counts as the plan may grow to it.
int most_rounds(const Study& study) {
  return study.repeat_policy.adaptive() ? std::max(study.repeat, study.repeat_policy.max) : study.repeat;
}

// Trials a study expands to before exclude and where: cross product plus includes, per round.
std::uint64_t study_size(const Study& study, std::string* shape = nullptr) {
  std::uint64_t combinations = 1;
  std::vector<std::string> sizes;
  for (const auto& dim : dimensions_of(study)) {
    combinations = saturating_mul(combinations, dim.size());
    sizes.push_back(std::to_string(dim.size()));
  }
  if (shape) {
    *shape = sizes.empty() ? "1" : fmt::format("{}", fmt::join(sizes, " × "));
    if (!study.include.empty()) *shape += fmt::format(" + {} included", study.include.size());
  }
  return saturating_mul(saturating_add(combinations, study.include.size()), std::uint64_t(most_rounds(study)));
}

// One positioned error, at the largest study, when the experiment expands to more than the limit.
std::optional<Diagnostic> check_size(const Experiment& experiment, const ExpansionLimits& limits) {
  std::uint64_t total = 0, largest = 0;
  const Study* biggest = nullptr;
  for (const auto& study : experiment.studies) {
    const std::uint64_t n = study_size(study);
    total = saturating_add(total, n);
    if (!biggest || n > largest) biggest = &study, largest = n;
  }
  if (total <= limits.max_trials) return std::nullopt;
  std::string shape;
  study_size(*biggest, &shape);
  const int rounds = most_rounds(*biggest);
  const std::string repeats =
      fmt::format("{}{} repeat{}", biggest->repeat_policy.adaptive() ? "up to " : "", rounds, rounds == 1 ? "" : "s");
  return Diagnostic{experiment.file_as_given, biggest->pos,
                    fmt::format("the experiment expands to {}{} trials, more than the limit of {}; study '{}' has {} "
                                "combination{} × {} (narrow the matrix{}, or raise the limit with --max-trials)",
                                biggest->repeat_policy.adaptive() ? "up to " : "", count_text(total), limits.max_trials,
                                biggest->name, shape, shape == "1" ? "" : "s", repeats,
                                biggest->repeat_policy.adaptive() ? " or repeat's max" : "")};
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

// A study after expansion: its combinations are numbered (the cross product in odometer order,
// then included extras) and only the numbers of those kept are stored; a trial is rebuilt from
// its number when it is read.
struct StudyPlan {
  const Study* study = nullptr;
  Combination base;
  std::vector<Dimension> dims;
  std::uint64_t cross_size = 1;
  std::vector<Combination> extra;  // included combinations that are not points of the cross product
  // The study's expressions, parsed once (the loader has already reported any that do not parse).
  std::vector<std::pair<const DerivedValue*, Expression>> derived_expressions;
  std::optional<Expression> where_expression;
  std::vector<std::string> axis_names;
  IdentityText identity_text;
  std::vector<std::uint64_t> kept;        // numbers of the combinations that become trials, in order
  std::vector<std::uint64_t> kept_state;  // and the hash state of each one's identity text

  explicit StudyPlan(const Study& s) : study(&s), dims(dimensions_of(s)), identity_text(s) {
    for (const auto& d : s.defaults) base[d.name] = d.value;
    for (const auto& dim : dims) cross_size *= dim.size();  // bounded by check_size
    std::string error;
    int column = 0;
    for (const auto& d : s.derived) {
      if (auto e = Expression::parse(d.expression.text, error, column)) derived_expressions.emplace_back(&d, *e);
    }
    if (s.where) where_expression = Expression::parse(s.where->text, error, column);
    std::set<std::string> seen;
    auto add_axis = [&](const std::string& name) {
      if (seen.insert(name).second) axis_names.push_back(name);
    };
    for (const auto& axis : s.axes) add_axis(axis.name);
    for (const auto& zip : s.zips) {
      for (const auto& axis : zip.axes) add_axis(axis.name);
    }
    for (const auto& inc : s.include) {
      for (const auto& setting : inc.values) add_axis(setting.name);
    }
  }

  std::uint64_t combination_count() const { return cross_size + extra.size(); }

  // Combination number `id`: an odometer over the dimensions, the last one turning fastest.
  Combination combination(std::uint64_t id) const {
    if (id >= cross_size) return extra[id - cross_size];
    Combination c = base;
    for (size_t d = dims.size(); d-- > 0;) {
      for (const auto& [name, value] : dims[d][id % dims[d].size()]) c[name] = value;
      id /= dims[d].size();
    }
    return c;
  }

  // The number of the cross-product point equal to `c`, if there is one.
  std::optional<std::uint64_t> cross_id_of(const Combination& c) const {
    std::uint64_t id = 0;
    for (const auto& dim : dims) {
      auto point = std::find_if(dim.begin(), dim.end(), [&](const Combination& p) {
        return std::all_of(p.begin(), p.end(), [&](const auto& kv) {
          auto it = c.find(kv.first);
          return it != c.end() && it->second.text == kv.second.text;
        });
      });
      if (point == dim.end()) return std::nullopt;
      id = id * dim.size() + std::uint64_t(point - dim.begin());
    }
    if (!same_values(combination(id), c)) return std::nullopt;
    return id;
  }

  // Derived values of `c` in order; on an evaluation error, nullopt with `error` and `failed` set.
  std::optional<std::vector<Param>> derive(const Combination& c, std::string& error,
                                           const DerivedValue** failed = nullptr) const {
    std::vector<Param> derived;
    auto lookup = lookup_in(c, derived);
    for (const auto& [d, expression] : derived_expressions) {
      auto v = expression.evaluate(lookup, error);
      if (!v) {
        if (failed) *failed = d;
        return std::nullopt;
      }
      derived.push_back({d->name, v->to_param()});
    }
    return derived;
  }

  static Expression::Lookup lookup_in(const Combination& c, const std::vector<Param>& derived) {
    return [&c, &derived](const std::string& name) -> std::optional<std::string> {
      auto it = c.find(name);
      if (it != c.end()) return it->second.text;
      for (const auto& d : derived) {
        if (d.name == name) return d.value;
      }
      return std::nullopt;
    };
  }

  void keep(std::uint64_t id, const Combination& c) {
    kept.push_back(id);
    kept_state.push_back(identity_text.state_of(c));
  }

  // The trial of kept combination `k` in repeat `repeat`.
  Trial make_trial(std::size_t k, int repeat) const {
    const Combination c = combination(kept[k]);
    std::string unused;
    Trial t;
    t.study = study->name;
    t.workload = study->workload;
    t.repeat_index = repeat;
    t.timeout_s = study->timeout_s;
    for (const auto& [name, value] : c) {
      if (is_env(name)) {
        t.environment.push_back({name.substr(4), value.text});
      } else {
        t.params.push_back({name, value.text});
      }
    }
    t.derived = derive(c, unused).value_or(std::vector<Param>{});  // succeeded when the study was expanded
    t.engine_args = study->engine_args;
    for (const auto& word : study->command) t.command.push_back(word.text);
    t.command_uses_launcher = study->command_uses_launcher;
    t.metrics = study->metrics;
    for (const auto& st : study->stages) t.stages.push_back(st.stage);
    t.profile = study->profile;
    t.restart = study->restart;
    t.axis_names = axis_names;
    t.ranks = int(std::strtol(t.param("ranks", "1").c_str(), nullptr, 10));  // validated: within int
    t.group_key = hash_hex(kept_state[k]);
    t.identity = IdentityText::identity(kept_state[k], repeat);
    return t;
  }
};

// Decides, combination by combination, which become trials: exclude, derived values, where, and
// the checks the engine and launcher would otherwise fail at run time.
struct StudyExpander {
  const Experiment& experiment;
  StudyPlan& plan;
  Expansion& result;

  void error(SourcePos pos, std::string message) {
    Diagnostic d{experiment.file_as_given, pos, std::move(message)};
    for (const auto& e : result.errors) {
      if (e.pos.line == d.pos.line && e.pos.column == d.pos.column && e.message == d.message) return;
    }
    result.errors.push_back(std::move(d));
  }

  bool excluded(const Combination& c) const {
    const auto& exclude = plan.study->exclude;
    return std::any_of(exclude.begin(), exclude.end(), [&](const auto& a) { return matches(c, a); });
  }

  // Included combinations that the cross product does not already hold (or holds but excludes).
  void collect_includes() {
    for (const auto& inc : plan.study->include) {
      Combination c = plan.base;
      for (const auto& s : inc.values) c[s.name] = s.value;
      auto id = plan.cross_id_of(c);
      if (id && !excluded(plan.combination(*id))) continue;
      if (std::none_of(plan.extra.begin(), plan.extra.end(), [&](const auto& x) { return same_values(x, c); })) {
        plan.extra.push_back(std::move(c));
      }
    }
  }

  // Derived values and the where filter; false when the combination is dropped.
  bool derive_and_filter(const Combination& c, std::vector<Param>& derived) {
    std::string error;
    const DerivedValue* failed = nullptr;
    auto values = plan.derive(c, error, &failed);
    if (!values) {
      this->error(failed->expression.pos, fmt::format("derived value '{}': {}", failed->name, error));
      return false;
    }
    derived = std::move(*values);
    if (!plan.where_expression) return true;
    auto v = plan.where_expression->evaluate(StudyPlan::lookup_in(c, derived), error);
    if (!v) {
      this->error(plan.study->where->pos, fmt::format("where: {}", error));
      return false;
    }
    if (!v->truthy()) ++result.filtered;
    return v->truthy();
  }

  // Every {name} in a command template must be a parameter, derived value or built-in.
  void check_command_template(const Combination& c, const std::vector<Param>& derived) {
    for (const auto& word : plan.study->command) {
      std::string problem;
      bool ok = expand_template(
                    word.text,
                    [&](const std::string& name) -> std::optional<std::string> {
                      bool known = c.count(name) || std::find(kTemplateBuiltins.begin(), kTemplateBuiltins.end(),
                                                              name) != kTemplateBuiltins.end();
                      for (const auto& d : derived) known = known || d.name == name;
                      return known ? std::optional<std::string>("") : std::nullopt;
                    },
                    problem)
                    .has_value();
      if (!ok) error(word.pos, "command: " + problem);
    }
  }

  // True when the combination may run, with the parameters a stage overrides when given;
  // otherwise the problem is reported at the value to change.
  bool runnable(const Combination& c, const StageSpec* stage = nullptr) {
    // The value of `name` and where it was set: the stage's own, else the combination's.
    auto lookup = [&](const std::string& name) -> std::optional<Value> {
      for (size_t i = 0; stage && i < stage->stage.params.size(); ++i) {
        if (stage->stage.params[i].name == name) return Value{stage->stage.params[i].value, stage->param_pos[i]};
      }
      auto it = c.find(name);
      return it == c.end() ? std::nullopt : std::optional<Value>(it->second);
    };
    auto problem = check_trial_params(plan.study->workload, [&](const std::string& name) -> std::optional<std::string> {
      auto v = lookup(name);
      return v ? std::optional<std::string>(v->text) : std::nullopt;
    });
    if (!problem) {
      auto ranks = lookup("ranks");
      const int n = ranks ? int(std::strtol(ranks->text.c_str(), nullptr, 10)) : 1;
      std::string why = launcher_rank_problem(experiment.launcher, n);
      if (!why.empty()) problem = TrialProblem{"ranks", why};
    }
    if (!problem) return true;
    auto blamed = lookup(problem->blamed_param);
    error(blamed ? blamed->pos : plan.study->pos, problem->message);
    return false;
  }

  // Every stage that runs the study's workload with parameters of its own must be runnable too.
  bool stages_runnable(const Combination& c) {
    for (const auto& stage : plan.study->stages) {
      if (stage.stage.workload == plan.study->workload && !stage.stage.params.empty() && !runnable(c, &stage))
        return false;
    }
    return true;
  }

  void expand() {
    const std::size_t errors_before = result.errors.size();  // of the studies expanded before this one
    collect_includes();
    for (std::uint64_t id = 0; id < plan.combination_count(); ++id) {
      const Combination c = plan.combination(id);
      if (id < plan.cross_size && excluded(c)) {
        ++result.excluded;
        continue;
      }
      std::vector<Param> derived;
      if (!derive_and_filter(c, derived) || !runnable(c) || !stages_runnable(c)) continue;
      check_command_template(c, derived);
      plan.keep(id, c);
    }
    if (plan.kept.empty() && result.errors.size() == errors_before) {
      error(plan.study->pos, fmt::format("study '{}' has no trials left after exclude and where", plan.study->name));
    }
  }
};

// The expanded studies in run order: for each repeat, each study that still repeats, its kept
// combinations. Owns a copy of the experiment, which the plans point into.
class ExpandedStudies final : public TrialSource {
 public:
  explicit ExpandedStudies(const Experiment& experiment) : experiment_(experiment) {
    studies_.reserve(experiment_.studies.size());
    for (const auto& study : experiment_.studies) studies_.emplace_back(study);
  }

  void expand(Expansion& result) {
    int max_repeat = 0;
    for (auto& plan : studies_) {
      StudyExpander{experiment_, plan, result}.expand();
      max_repeat = std::max(max_repeat, plan.study->repeat);
    }
    // Repeat-major across studies too: studies compared with each other (an engine and a peer
    // program) take turns, so neither gets the quieter half of the run.
    for (int r = 0; r < max_repeat; ++r) {
      for (size_t s = 0; s < studies_.size(); ++s) {
        if (r >= studies_[s].study->repeat || studies_[s].kept.empty()) continue;
        segments_.push_back({size_, s, r});
        size_ += studies_[s].kept.size();
      }
      if (experiment_.order == kOrderShuffled) shuffle_round(r);
    }
  }

  std::size_t size() const override { return size_; }

  Trial trial(std::size_t index) const override {
    index = matrix_index(index);
    const Segment& segment = segment_of(index);
    return studies_[segment.study].make_trial(index - segment.first, segment.repeat);
  }

  std::string identity(std::size_t index) const override {
    index = matrix_index(index);
    const Segment& segment = segment_of(index);
    return IdentityText::identity(studies_[segment.study].kept_state[index - segment.first], segment.repeat);
  }

 private:
  struct Segment {
    std::size_t first;  // index of its first trial in the list
    std::size_t study;
    int repeat;
  };
  const Segment& segment_of(std::size_t index) const {
    auto next = std::upper_bound(segments_.begin(), segments_.end(), index,
                                 [](std::size_t i, const Segment& s) { return i < s.first; });
    return *(next - 1);
  }

  // Permutes the trials of round `round`, the last ones added, among themselves.
  void shuffle_round(int round) {
    const std::size_t first = shuffled_.size();
    for (std::uint64_t k : shuffled_round(size_ - first, experiment_.seed, round)) shuffled_.push_back(first + k);
  }
  // Where the trial at run position `index` is in matrix order.
  std::size_t matrix_index(std::size_t index) const { return shuffled_.empty() ? index : shuffled_[index]; }

  Experiment experiment_;
  std::vector<StudyPlan> studies_;
  std::vector<Segment> segments_;
  std::vector<std::size_t> shuffled_;  // run position → matrix position; empty when interleaved
  std::size_t size_ = 0;
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

Expansion expand_experiment(const Experiment& experiment, const ExpansionLimits& limits) {
  Expansion result;
  if (auto too_big = check_size(experiment, limits)) {
    result.errors.push_back(std::move(*too_big));
    return result;
  }
  auto studies = std::make_shared<ExpandedStudies>(experiment);
  studies->expand(result);
  result.trials = TrialList(std::move(studies));
  return result;
}

Trial with_repeat(Trial trial, int repeat) {
  // A group key is the hex of the hash state its identities continue from (IdentityText).
  const std::uint64_t state = std::strtoull(trial.group_key.c_str(), nullptr, 16);
  trial.repeat_index = repeat;
  trial.identity = IdentityText::identity(state, repeat);
  return trial;
}

std::string plan_hash(const TrialList& trials) {
  std::string text;
  for (std::size_t i = 0; i < trials.size(); ++i) text += trials.identity(i) + '\n';
  return content_hash(text);
}

}  // namespace mt
