#include "experiment/study_loader.h"

#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/expression.h"
#include "experiment/expression_reader.h"
#include "experiment/input_bounds.h"
#include "experiment/measurement_loader.h"
#include "experiment/param_checker.h"
#include "experiment/restart_loader.h"
#include "experiment/stage_loader.h"
#include "experiment/workload_params.h"

namespace mt {
namespace {

const std::vector<std::string> kStudyKeys = {
    "name",  "workload",    "repeat",  "timeout_s", "defaults", "matrix", "zip",     "exclude",   "include", "derived",
    "where", "engine_args", "command", "launch",    "metrics",  "stages", "profile", "questions", "restart"};

std::optional<Axis> read_axis(YamlReader& r, ParamChecker& params, const YAML::Node& key, const YAML::Node& values) {
  Axis axis{key.Scalar(), {}, pos_of(key)};
  if (!params.check_name(axis.name, axis.pos)) return std::nullopt;
  if (values.IsScalar()) {
    if (auto v = r.value(values, axis.name)) axis.values.push_back(*v);
  } else if (values.IsSequence()) {
    if (values.size() == 0) r.error(pos_of(values), fmt::format("axis '{}' has no values", axis.name));
    if (values.size() > kMaxAxisValues) {
      r.error(pos_of(values), fmt::format("axis '{}' has {} values; an axis takes at most {} (split the study)",
                                          axis.name, values.size(), kMaxAxisValues));
      return std::nullopt;
    }
    for (const auto& item : values) {
      if (auto v = r.value(item, axis.name)) axis.values.push_back(*v);
    }
  } else {
    r.error(pos_of(values), fmt::format("axis '{}' must be a list of values, got {}", axis.name, kind_name(values)));
    return std::nullopt;
  }
  std::set<std::string> seen;
  for (const auto& v : axis.values) {
    params.check_value(axis.name, v);
    if (!seen.insert(v.text).second) r.error(v.pos, fmt::format("axis '{}' lists '{}' twice", axis.name, v.text));
  }
  return axis;
}

void read_zip(YamlReader& r, ParamChecker& params, const YAML::Node& node, Study& study) {
  if (!node.IsMap()) {
    r.error(pos_of(node),
            fmt::format("zip must be a mapping of group name: {{axis: [values], …}}, got {}", kind_name(node)));
    return;
  }
  for (const auto& group_kv : node) {
    ZipGroup group{group_kv.first.Scalar(), {}, pos_of(group_kv.first)};
    const YAML::Node& axes = group_kv.second;
    if (!axes.IsMap() || axes.size() < 2) {
      r.error(pos_of(axes), fmt::format("zip group '{}' must map at least two axes to lists of values", group.name));
      continue;
    }
    for (const auto& kv : axes) {
      if (auto axis = read_axis(r, params, kv.first, kv.second)) group.axes.push_back(std::move(*axis));
    }
    for (const auto& axis : group.axes) {
      if (axis.values.size() != group.axes.front().values.size()) {
        r.error(axis.pos, fmt::format("zip group '{}': axis '{}' has {} values but '{}' has {}; zipped axes need "
                                      "equal lengths",
                                      group.name, axis.name, axis.values.size(), group.axes.front().name,
                                      group.axes.front().values.size()));
      }
    }
    study.zips.push_back(std::move(group));
  }
}

void read_assignments(YamlReader& r, ParamChecker& params, const YAML::Node& node, const std::string& what,
                      std::vector<Assignment>& out) {
  if (!node.IsSequence()) {
    r.error(pos_of(node),
            fmt::format("{} must be a list of {{parameter: value}} mappings, got {}", what, kind_name(node)));
    return;
  }
  for (const auto& entry : node) {
    Assignment a{params.read_settings(entry, what + " entry"), pos_of(entry)};
    if (entry.IsMap() && a.values.size() < entry.size()) r.count_as_blocking();  // it would match more
    if (entry.IsMap() && entry.size() == 0) r.error(pos_of(entry), fmt::format("empty {} entry", what));
    out.push_back(std::move(a));
  }
}

// Every name an expression uses must be a parameter or an earlier derived value.
void check_expression_names(YamlReader& r, const ExpressionText& e, const std::string& what,
                            const std::set<std::string>& known) {
  std::string error;
  int column = 0;
  auto parsed = Expression::parse(e.text, error, column);
  if (!parsed) return;
  for (const auto& name : parsed->names()) {
    if (known.count(name) == 0) {
      r.error(e.pos, fmt::format("{} uses '{}', which is not a parameter of this study{}", what, name,
                                 did_you_mean(name, std::vector<std::string>(known.begin(), known.end()))));
    }
  }
}

void read_command(YamlReader& r, const YAML::Node& node, Study& study) {
  if (!node["command"]) {
    r.error(study.pos, fmt::format("study '{}' has workload 'command' but no 'command' (an argv list)", study.name));
    return;
  }
  const YAML::Node& cmd = node["command"];
  if (!cmd.IsSequence() || cmd.size() == 0) {
    r.error(pos_of(cmd), "command must be a non-empty list: the program and its arguments (no shell)");
    return;
  }
  for (const auto& word : cmd) {
    if (auto v = r.value(word, "command argument")) study.command.push_back(*v);
  }
  if (const YAML::Node launch = node["launch"]) {
    if (auto mode = r.scalar(launch, "launch")) {
      if (*mode == "launcher") study.command_uses_launcher = true;
      else if (*mode == "direct") study.command_uses_launcher = false;
      else r.error(pos_of(launch), fmt::format("launch must be 'launcher' or 'direct', got '{}'", *mode));
    }
  }
  if (const YAML::Node metrics = node["metrics"]) {
    if (!metrics.IsMap()) {
      r.error(pos_of(metrics),
              fmt::format("metrics must map names to {{regex: …}} or {{json: …}}, got {}", kind_name(metrics)));
      return;
    }
    for (const auto& kv : metrics) {
      MetricRule m{kv.first.Scalar(), "", "", ""};
      const std::string what = fmt::format("metric '{}'", m.name);
      if (!r.check_map(kv.second, what, {"regex", "json", "better"})) continue;
      if (kv.second["regex"]) m.regex = r.scalar(kv.second["regex"], what + " regex").value_or("");
      if (kv.second["json"]) m.json_path = r.scalar(kv.second["json"], what + " json path").value_or("");
      if (const YAML::Node better = kv.second["better"]) {
        auto text = r.scalar(better, what + " better");
        if (text && *text != "higher" && *text != "lower") {
          r.error(pos_of(better), fmt::format("{} better must be 'higher' or 'lower' (which way is an improvement), "
                                              "got '{}'",
                                              what, *text));
        } else if (text) {
          m.better = *text;
        }
      }
      if (m.regex.empty() == m.json_path.empty()) {
        r.error(pos_of(kv.first), fmt::format("{} needs exactly one of 'regex' or 'json'", what));
        continue;
      }
      if (!m.regex.empty()) {
        try {
          std::regex compiled(m.regex);
          if (compiled.mark_count() < 1) {
            r.error(pos_of(kv.second["regex"]), fmt::format("{} regex needs a capture group around the number", what));
          }
        } catch (const std::regex_error& e) {
          r.error(pos_of(kv.second["regex"]), fmt::format("{} regex is invalid: {}", what, e.what()));
        }
      }
      study.metrics.push_back(std::move(m));
    }
  }
}

// `profile: true|false`; true needs a workload that takes --profile.
void read_profile(YamlReader& r, const YAML::Node& node, const WorkloadSpec* workload, Study& study) {
  auto text = r.scalar(node, "profile");
  if (!text) return;
  if (*text != "true" && *text != "false") {
    r.error(pos_of(node), fmt::format("profile must be true or false, got '{}'", *text));
    return;
  }
  study.profile = *text == "true";
  if (!study.profile || !workload || can_profile(*workload)) return;
  std::vector<std::string> able;
  for (const auto& w : workload_table()) {
    if (can_profile(w)) able.push_back(w.name);
  }
  r.error(pos_of(node),
          fmt::format("workload '{}' cannot be profiled: profile: true runs the engine with --profile "
                      "(workloads that take it: {})",
                      workload->name, able.empty() ? "none loaded" : fmt::format("{}", fmt::join(able, ", "))));
}

}  // namespace

std::optional<Study> read_study(YamlReader& r, const YAML::Node& node, int index, const StudyDefaults& defaults) {
  std::string what = fmt::format("study #{}", index + 1);
  if (!r.check_map(node, what, kStudyKeys)) return std::nullopt;
  Study study;
  study.pos = pos_of(node);
  study.repeat = defaults.repeat;
  study.repeat_policy = defaults.repeat_policy;
  study.timeout_s = defaults.timeout_s;
  if (!node["name"]) {
    r.error(study.pos, fmt::format("{} needs a 'name'", what));
  } else if (auto name = r.scalar(node["name"], "study name")) {
    study.name = *name;
    if (!is_valid_name(study.name)) {
      r.error(pos_of(node["name"]),
              fmt::format("study name '{}' may use only letters, digits, '_', '.' and '-'", study.name));
    }
  }
  const WorkloadSpec* workload = nullptr;
  if (!node["workload"]) {
    r.error(study.pos, fmt::format("{} needs a 'workload' (one of: {})", what, fmt::join(workload_names(), ", ")));
  } else if (auto w = r.scalar(node["workload"], "workload")) {
    study.workload = *w;
    workload = find_workload(*w);
    if (!workload) {
      if (auto why = engine_workload_problem(*w))
        r.error(pos_of(node["workload"]), fmt::format("workload '{}' cannot be checked: {}", *w, *why));
      else
        r.error(pos_of(node["workload"]),
                fmt::format("unknown workload '{}'{}", *w, did_you_mean(*w, workload_names())));
    }
  }
  ParamChecker params(r, workload);
  if (node["profile"]) read_profile(r, node["profile"], workload, study);
  if (node["repeat"]) {
    if (auto policy = read_repeat(r, node["repeat"])) {
      study.repeat_policy = *policy;
      study.repeat = policy->min;
    }
  }
  if (node["timeout_s"]) {
    if (auto v = r.number(node["timeout_s"], "timeout_s", 1)) study.timeout_s = *v;
  }
  if (node["defaults"]) study.defaults = params.read_settings(node["defaults"], "defaults");
  if (const YAML::Node matrix = node["matrix"]) {
    if (!matrix.IsMap()) {
      r.error(pos_of(matrix), fmt::format("matrix must be a mapping of axis: [values], got {}", kind_name(matrix)));
    } else {
      for (const auto& kv : matrix) {
        if (auto axis = read_axis(r, params, kv.first, kv.second)) study.axes.push_back(std::move(*axis));
      }
    }
  }
  if (node["zip"]) read_zip(r, params, node["zip"], study);
  if (node["exclude"]) read_assignments(r, params, node["exclude"], "exclude", study.exclude);
  if (node["include"]) read_assignments(r, params, node["include"], "include", study.include);
  if (node["engine_args"]) study.engine_args = r.string_list(node["engine_args"], "engine_args");

  // Each parameter is set in one place: a default, a matrix axis or a zip group.
  std::map<std::string, SourcePos> set_at;
  auto claim = [&](const std::string& name, SourcePos pos) {
    if (!set_at.emplace(name, pos).second) {
      r.error(pos, fmt::format("'{}' is set twice (also at line {}); keep one", name, set_at[name].line));
    }
  };
  for (const auto& d : study.defaults) claim(d.name, d.value.pos);
  for (const auto& a : study.axes) claim(a.name, a.pos);
  for (const auto& z : study.zips) {
    for (const auto& a : z.axes) claim(a.name, a.pos);
  }

  std::set<std::string> known;
  if (workload) {
    for (const auto& p : workload->params) known.insert(p.name);
  }
  for (const auto& [name, pos] : set_at) known.insert(name);
  for (const auto& a : study.include) {
    for (const auto& s : a.values) known.insert(s.name);
  }
  if (const YAML::Node derived = node["derived"]) {
    if (!derived.IsMap()) {
      r.error(pos_of(derived),
              fmt::format("derived must be a mapping of name: expression, got {}", kind_name(derived)));
    } else {
      for (const auto& kv : derived) {
        std::string name = kv.first.Scalar();
        if (!is_identifier(name)) {
          r.error(pos_of(kv.first), fmt::format("derived name '{}' must be an identifier", name));
          continue;
        }
        if (known.count(name)) {
          r.error(pos_of(kv.first), fmt::format("derived value '{}' would hide the parameter of that name", name));
          continue;
        }
        if (auto e = read_expression(r, kv.second, fmt::format("derived value '{}'", name))) {
          check_expression_names(r, *e, fmt::format("derived value '{}'", name), known);
          study.derived.push_back({name, *e});
        }
        known.insert(name);
      }
    }
  }
  if (node["where"]) {
    study.where = read_expression(r, node["where"], "where");
    if (study.where) check_expression_names(r, *study.where, "where", known);
  }
  if (study.workload == "command") {
    read_command(r, node, study);
  } else if (node["command"] || node["launch"] || node["metrics"]) {
    r.error(study.pos, fmt::format("'command', 'launch' and 'metrics' belong to studies with workload 'command'"));
  }
  if (const YAML::Node stages = node["stages"]) {
    if (study.workload == "command") {
      r.error(pos_of(stages),
              "stages need a study of an engine workload such as 'train' (a stage may itself run a "
              "command)");
    } else {
      read_stages(r, stages, {workload, known, set_at.count("checkpoint_dir") > 0}, study);
    }
  }
  if (!node["restart"]) {
    for (const auto& spec : study.stages) {
      if (spec.stage.expect.restarts.value_or(0) > 0)
        r.error(spec.pos, fmt::format("stage '{}' expects restarts, but study '{}' has no restart policy "
                                      "(restart: {{max: N}})",
                                      spec.stage.name, study.name));
    }
  }
  if (const YAML::Node restart = node["restart"]) {
    if (auto policy = read_restart(r, restart, workload)) {
      study.restart = *policy;
      check_restartable(r, restart, study, set_at.count(kCheckpointDirParam) > 0, set_at.count(kProgressFileParam) > 0);
    }
  }
  return study;
}

}  // namespace mt
