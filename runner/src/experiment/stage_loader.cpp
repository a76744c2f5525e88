#include "experiment/stage_loader.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "experiment/command_template.h"
#include "experiment/param_checker.h"

namespace mt {
namespace {

const std::vector<std::string> kStageKeys = {"name",    "workload", "params",    "engine_args", "compare",
                                             "command", "launch",   "timeout_s", "expect"};
const std::vector<std::string> kExpectKeys = {
    "outcome",     "rank",        "exit_code",     "step",        "message_contains", "resumed_from_step",
    "exact_match", "ready_steps", "no_ready_step", "latest_step", "checkpoint_dir",   "restarts"};

// A list of scalars with their positions (a single scalar counts as a list of one).
std::vector<Value> value_list(YamlReader& r, const YAML::Node& node, const std::string& what) {
  std::vector<Value> out;
  if (node.IsScalar()) {
    if (auto v = r.value(node, what)) out.push_back(*v);
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (auto v = r.value(item, what)) out.push_back(*v);
    }
  } else {
    r.error(pos_of(node), fmt::format("{} must be a list of strings, got {}", what, kind_name(node)));
  }
  return out;
}

std::vector<std::string> texts(const std::vector<Value>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(v.text);
  return out;
}

// Reads one stage; `label` is "stage 'name'" once the name is known.
class StageReader {
 public:
  StageReader(YamlReader& r, const StageContext& context) : r_(r), context_(context) {
    names_ = std::vector<std::string>(context.known.begin(), context.known.end());
    names_.insert(names_.end(), kTemplateBuiltins.begin(), kTemplateBuiltins.end());
    names_.push_back(kWorkDirName);
  }

  std::optional<StageSpec> read(const YAML::Node& node, int index) {
    const std::string what = fmt::format("stage #{}", index + 1);
    if (!r_.check_map(node, what, kStageKeys)) return std::nullopt;
    StageSpec spec;
    Stage& stage = spec.stage;
    spec.pos = pos_of(node);
    if (!node["name"]) {
      r_.error(spec.pos, fmt::format("{} needs a 'name'", what));
    } else if (auto name = r_.scalar(node["name"], "stage name")) {
      stage.name = *name;
      if (!is_valid_name(stage.name)) {
        r_.error(pos_of(node["name"]),
                 fmt::format("stage name '{}' may use only letters, digits, '_', '.' and '-'", stage.name));
      }
    }
    label_ = stage.name.empty() ? what : fmt::format("stage '{}'", stage.name);
    read_workload(node, stage);
    read_launch(node, spec);
    if (node["timeout_s"]) {
      if (auto v = r_.number(node["timeout_s"], "timeout_s", 1)) stage.timeout_s = *v;
    }
    if (node["expect"]) read_expect(node["expect"], stage);
    check_checkpoint_dir(node, stage);
    return spec;
  }

 private:
  bool runs_study_workload(const Stage& s) const { return context_.workload && s.workload == context_.workload->name; }

  void read_workload(const YAML::Node& node, Stage& stage) {
    const std::string own = context_.workload ? context_.workload->name : "";
    stage.workload = own;
    if (!node["workload"]) return;
    auto w = r_.scalar(node["workload"], "stage workload");
    if (!w) return;
    stage.workload = *w;
    std::vector<std::string> choices = {kVerifyStage, kCommandStage};
    if (!own.empty()) choices.insert(choices.begin(), own);
    if (std::find(choices.begin(), choices.end(), *w) == choices.end()) {
      std::string hint = did_you_mean(*w, choices);
      r_.error(pos_of(node["workload"]),
               fmt::format("unknown stage workload '{}'{}", *w,
                           hint.empty() ? fmt::format(" (expected one of: {})", fmt::join(choices, ", ")) : hint));
    }
  }

  // What the stage launches: the study's workload with parameters, verify with two directories, or
  // a command; each part only where it applies.
  void read_launch(const YAML::Node& node, StageSpec& spec) {
    Stage& stage = spec.stage;
    const bool own = runs_study_workload(stage);
    if (const YAML::Node params = node["params"]) {
      if (!own) {
        r_.error(pos_of(params),
                 fmt::format("{} runs '{}': 'params' apply only to stages of the study's workload{}", label_,
                             stage.workload, context_.workload ? " ('" + context_.workload->name + "')" : ""));
      } else {
        ParamChecker checker(r_, context_.workload);
        for (auto& setting : checker.read_settings(params, "params of " + label_)) {
          check_template(setting.value);
          stage.params.push_back({setting.name, setting.value.text});
          spec.param_pos.push_back(setting.value.pos);
        }
      }
    }
    if (const YAML::Node args = node["engine_args"]) {
      if (stage.workload == kCommandStage) {
        r_.error(pos_of(args), fmt::format("{} runs a command: 'engine_args' apply to engine workloads", label_));
      }
      stage.engine_args = texts(checked_list(args, "engine_args"));
    }
    if (stage.workload == kVerifyStage) {
      const YAML::Node compare = node["compare"];
      std::vector<Value> dirs;
      if (compare) dirs = checked_list(compare, "compare");
      if (dirs.size() != 2) {
        r_.error(compare ? pos_of(compare) : spec.pos,
                 fmt::format("{} (verify) needs 'compare': the two checkpoint step directories to compare", label_));
      }
      stage.compare = texts(dirs);
    } else if (node["compare"]) {
      r_.error(pos_of(node["compare"]), "'compare' belongs to stages of workload 'verify'");
    }
    if (stage.workload == kCommandStage) {
      read_command(node, spec);
    } else if (node["command"] || node["launch"]) {
      r_.error(pos_of(node["command"] ? node["command"] : node["launch"]),
               "'command' and 'launch' belong to stages of workload 'command'");
    }
  }

  void read_command(const YAML::Node& node, StageSpec& spec) {
    Stage& stage = spec.stage;
    const YAML::Node cmd = node["command"];
    if (!cmd) {
      r_.error(spec.pos, fmt::format("{} has workload 'command' but no 'command' (an argv list)", label_));
    } else if (!cmd.IsSequence() || cmd.size() == 0) {
      r_.error(pos_of(cmd), "command must be a non-empty list: the program and its arguments (no shell)");
    } else {
      stage.command = texts(checked_list(cmd, "command argument"));
    }
    if (const YAML::Node launch = node["launch"]) {
      if (auto mode = r_.scalar(launch, "launch")) {
        if (*mode == "launcher") stage.command_uses_launcher = true;
        else if (*mode == "direct") stage.command_uses_launcher = false;
        else r_.error(pos_of(launch), fmt::format("launch must be 'launcher' or 'direct', got '{}'", *mode));
      }
    }
  }

  std::vector<Value> checked_list(const YAML::Node& node, const std::string& what) {
    std::vector<Value> values = value_list(r_, node, what);
    for (const auto& v : values) check_template(v);
    return values;
  }

  // Every {name} must be {work_dir}, a built-in or one of the study's values.
  void check_template(const Value& word) {
    std::string error;
    auto known = [&](const std::string& name) -> std::optional<std::string> {
      if (std::find(names_.begin(), names_.end(), name) == names_.end()) return std::nullopt;
      return "";
    };
    if (expand_template(word.text, known, error)) return;
    std::string hint;
    for (const auto& name : template_names(word.text)) {
      if (!known(name)) hint = did_you_mean(name, names_);
    }
    r_.error(word.pos, fmt::format("{}: {}{}", label_, error, hint));
  }

  void read_outcome(const YAML::Node& node, StageExpectation& e) {
    auto outcome = r_.scalar(node, "outcome");
    if (!outcome) return;
    e.outcome = *outcome;
    if (std::find(kStageOutcomes.begin(), kStageOutcomes.end(), *outcome) != kStageOutcomes.end()) return;
    std::string hint = did_you_mean(*outcome, kStageOutcomes);
    r_.error(pos_of(node),
             fmt::format("unknown outcome '{}'{}", *outcome,
                         hint.empty() ? fmt::format(" (expected one of: {})", fmt::join(kStageOutcomes, ", ")) : hint));
  }

  std::vector<int> steps(const YAML::Node& node, const std::string& what) {
    std::vector<int> out;
    if (!node.IsScalar() && !node.IsSequence()) {
      r_.error(pos_of(node),
               fmt::format("expect: {} must be a step or a list of steps, got {}", what, kind_name(node)));
      return out;
    }
    if (node.IsScalar()) {
      if (auto v = r_.integer(node, what, 0)) out.push_back(*v);
      return out;
    }
    for (const auto& item : node) {
      if (auto v = r_.integer(item, what, 0)) out.push_back(*v);
    }
    return out;
  }

  void read_expect(const YAML::Node& node, Stage& stage) {
    StageExpectation& e = stage.expect;
    if (node.IsScalar()) {
      read_outcome(node, e);
      return;
    }
    if (!r_.check_map(node, "expect of " + label_, kExpectKeys)) return;
    if (node["outcome"]) read_outcome(node["outcome"], e);
    auto integer = [&](const char* key, std::optional<int>& out) {
      if (node[key]) out = r_.integer(node[key], key, 0);
    };
    integer("rank", e.rank);
    integer("exit_code", e.exit_code);
    integer("step", e.step);
    integer("resumed_from_step", e.resumed_from_step);
    integer("restarts", e.restarts);
    integer("latest_step", e.latest_step);
    if (node["message_contains"]) {
      if (auto v = r_.value(node["message_contains"], "message_contains")) {
        check_template(*v);
        e.message_contains = v->text;
      }
    }
    if (node["checkpoint_dir"]) {
      if (auto v = r_.value(node["checkpoint_dir"], "checkpoint_dir")) {
        check_template(*v);
        e.checkpoint_dir = v->text;
      }
    }
    if (const YAML::Node m = node["exact_match"]) {
      if (auto v = r_.scalar(m, "exact_match")) {
        if (*v == "true" || *v == "false") e.exact_match = *v == "true";
        else r_.error(pos_of(m), fmt::format("expect: exact_match must be true or false, got '{}'", *v));
      }
    }
    if (node["ready_steps"]) e.ready_steps = steps(node["ready_steps"], "ready_steps");
    if (node["no_ready_step"]) e.no_ready_steps = steps(node["no_ready_step"], "no_ready_step");
    check_consistency(node, stage);
  }

  // Expectations that cannot hold together, or do not apply to what the stage runs.
  void check_consistency(const YAML::Node& node, const Stage& stage) {
    const StageExpectation& e = stage.expect;
    if (e.outcome == "succeeded") {
      for (const char* key : {"rank", "step"}) {
        if (node[key]) {
          r_.error(pos_of(node[key]), fmt::format("expect: '{}' is for a stage that fails or crashes, not one that "
                                                  "succeeds (set outcome)",
                                                  key));
        }
      }
      if (e.exit_code && *e.exit_code != 0) {
        r_.error(pos_of(node["exit_code"]), fmt::format("expect: exit_code {} contradicts outcome 'succeeded' (a stage "
                                                        "that succeeds exits 0; set outcome: failed)",
                                                        *e.exit_code));
      }
    } else if (e.outcome == "failed" && e.exit_code == 0) {
      r_.error(pos_of(node["exit_code"]), "expect: exit_code 0 contradicts outcome 'failed'");
    }
    if (node["resumed_from_step"] && stage.workload != "train") {
      r_.error(pos_of(node["resumed_from_step"]), "expect: resumed_from_step applies to stages that run 'train'");
    }
    if (node["restarts"] && !runs_study_workload(stage)) {
      r_.error(pos_of(node["restarts"]), "expect: restarts applies to stages that run the study's own workload");
    }
    if (node["exact_match"] && stage.workload != kVerifyStage) {
      r_.error(pos_of(node["exact_match"]), "expect: exact_match applies to stages of workload 'verify'");
    }
  }

  // Checks on a checkpoint directory need one: the stage's checkpoint_dir parameter (its own or
  // the study's) or expect's.
  void check_checkpoint_dir(const YAML::Node& node, const Stage& stage) {
    const StageExpectation& e = stage.expect;
    if (!e.checks_checkpoints() || !e.checkpoint_dir.empty()) return;
    const bool own = runs_study_workload(stage);
    const bool in_params = std::any_of(stage.params.begin(), stage.params.end(),
                                       [](const Param& p) { return p.name == "checkpoint_dir"; });
    if (own && (in_params || context_.study_sets_checkpoint_dir)) return;
    const YAML::Node expect = node["expect"];
    const char* key = expect["ready_steps"] ? "ready_steps" : expect["no_ready_step"] ? "no_ready_step" : "latest_step";
    r_.error(pos_of(expect[key]), fmt::format("expect: {} needs a checkpoint directory: set checkpoint_dir in the "
                                              "stage's params (or the study's), or in expect",
                                              key));
  }

  YamlReader& r_;
  const StageContext& context_;
  std::vector<std::string> names_;  // what templates may use
  std::string label_;
};

// A stage is stored (and identified) as JSON, which holds only valid UTF-8.
bool stores_as_json(const Stage& stage) {
  try {
    stage_to_json(stage);
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

void read_stages(YamlReader& r, const YAML::Node& node, const StageContext& context, Study& study) {
  if (!node.IsSequence() || node.size() == 0) {
    r.error(pos_of(node), "'stages' must be a non-empty list: each stage a mapping with a name and what it expects");
    return;
  }
  StageReader reader(r, context);
  for (size_t i = 0; i < node.size(); ++i) {
    auto spec = reader.read(node[i], int(i));
    if (!spec) continue;
    const std::string& name = spec->stage.name;
    if (!stores_as_json(spec->stage)) {
      r.error(spec->pos, fmt::format("stage {} holds text that is not valid UTF-8",
                                     name.empty() ? fmt::format("#{}", i + 1) : "'" + name + "'"));
      continue;
    }
    const bool twice = std::any_of(study.stages.begin(), study.stages.end(),
                                   [&](const StageSpec& s) { return !name.empty() && s.stage.name == name; });
    if (twice)
      r.error(pos_of(node[i]["name"]), fmt::format("stage name '{}' is used twice in study '{}'", name, study.name));
    study.stages.push_back(std::move(*spec));
  }
}

}  // namespace mt
