#include "experiment_loader.h"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "workload_params.h"

namespace mt {
namespace {

SourcePos pos_of(const YAML::Node& node) {
  YAML::Mark m = node.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

const char* kind_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "empty";
    default: return "undefined";
  }
}

// Collects errors against one file and offers typed accessors that record a message instead of
// throwing, so that one pass reports every problem.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  void error(SourcePos pos, std::string message) { errors_.push_back({file_, pos, std::move(message)}); }
  std::vector<Diagnostic>& errors() { return errors_; }

  // Reports keys of `map` not in `allowed`; returns false if `map` is not a mapping.
  bool check_map(const YAML::Node& map, const std::string& what, const std::vector<std::string>& allowed) {
    if (!map.IsMap()) {
      error(pos_of(map), fmt::format("{} must be a mapping, got {}", what, kind_name(map)));
      return false;
    }
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(pos_of(kv.first), fmt::format("unknown key '{}' in {}{}", key, what, did_you_mean(key, allowed)));
      }
    }
    return true;
  }

  std::optional<std::string> scalar(const YAML::Node& node, const std::string& what) {
    if (!node.IsScalar()) {
      error(pos_of(node), fmt::format("{} must be a scalar, got {}", what, kind_name(node)));
      return std::nullopt;
    }
    return node.Scalar();
  }

  std::optional<double> number(const YAML::Node& node, const std::string& what, double minimum) {
    auto text = scalar(node, what);
    if (!text) return std::nullopt;
    ParamSpec spec{what, ParamType::Number, {}, minimum};
    if (auto problem = check_param_value(spec, *text)) {
      error(pos_of(node), *problem);
      return std::nullopt;
    }
    return std::stod(*text);
  }

  std::optional<int> integer(const YAML::Node& node, const std::string& what, int minimum) {
    auto text = scalar(node, what);
    if (!text) return std::nullopt;
    ParamSpec spec{what, ParamType::Integer, {}, double(minimum)};
    if (auto problem = check_param_value(spec, *text)) {
      error(pos_of(node), *problem);
      return std::nullopt;
    }
    return std::stoi(*text);
  }

 private:
  std::string file_;
  std::vector<Diagnostic> errors_;
};

bool valid_name(const std::string& s) {
  static const std::regex pattern("[A-Za-z0-9][A-Za-z0-9_.-]*");
  return std::regex_match(s, pattern);
}

// Checks one parameter value against the workload's table.
void check_value(Reader& r, const WorkloadSpec& workload, const std::string& name, const Value& value,
                 SourcePos name_pos) {
  const ParamSpec* spec = workload.find(name);
  if (!spec) {
    r.error(name_pos, fmt::format("unknown parameter '{}' for workload '{}'{}", name, workload.name,
                                  did_you_mean(name, workload.param_names())));
    return;
  }
  if (auto problem = check_param_value(*spec, value.text)) r.error(value.pos, *problem);
}

std::optional<Value> read_value(Reader& r, const YAML::Node& node, const std::string& what) {
  auto text = r.scalar(node, what);
  if (!text) return std::nullopt;
  return Value{*text, pos_of(node)};
}

void read_defaults(Reader& r, const YAML::Node& node, const WorkloadSpec* workload, Study& study) {
  if (!node.IsMap()) {
    r.error(pos_of(node), fmt::format("defaults of study '{}' must be a mapping, got {}", study.name, kind_name(node)));
    return;
  }
  for (const auto& kv : node) {
    std::string name = kv.first.as<std::string>();
    auto value = read_value(r, kv.second, name);
    if (!value) continue;
    if (workload) check_value(r, *workload, name, *value, pos_of(kv.first));
    study.defaults.push_back({name, *value});
  }
}

void read_matrix(Reader& r, const YAML::Node& node, const WorkloadSpec* workload, Study& study) {
  if (!node.IsMap()) {
    r.error(pos_of(node), fmt::format("matrix of study '{}' must be a mapping of axis: [values], got {}",
                                      study.name, kind_name(node)));
    return;
  }
  for (const auto& kv : node) {
    Axis axis{kv.first.as<std::string>(), {}, pos_of(kv.first)};
    const YAML::Node& values = kv.second;
    if (values.IsScalar()) {
      if (auto v = read_value(r, values, axis.name)) axis.values.push_back(*v);
    } else if (values.IsSequence()) {
      if (values.size() == 0) r.error(pos_of(values), fmt::format("axis '{}' has no values", axis.name));
      for (const auto& item : values) {
        if (auto v = read_value(r, item, axis.name)) axis.values.push_back(*v);
      }
    } else {
      r.error(pos_of(values), fmt::format("axis '{}' must be a list of values, got {}", axis.name, kind_name(values)));
      continue;
    }
    if (workload) {
      for (const auto& v : axis.values) check_value(r, *workload, axis.name, v, axis.pos);
    }
    std::set<std::string> seen;
    for (const auto& v : axis.values) {
      if (!seen.insert(v.text).second) r.error(v.pos, fmt::format("axis '{}' lists '{}' twice", axis.name, v.text));
    }
    study.axes.push_back(std::move(axis));
  }
}

const std::vector<std::string> kTopKeys = {"name", "description", "repeat", "timeout_s", "launcher", "studies"};
const std::vector<std::string> kStudyKeys = {"name", "workload", "repeat", "timeout_s", "defaults", "matrix",
                                            "engine_args"};
const std::vector<std::string> kLauncherKeys = {"type", "args", "hostfile"};

void read_study(Reader& r, const YAML::Node& node, int index, int default_repeat, double default_timeout,
                std::set<std::string>& study_names, Experiment& exp) {
  std::string what = fmt::format("study #{}", index + 1);
  if (!r.check_map(node, what, kStudyKeys)) return;
  Study study;
  study.pos = pos_of(node);
  study.repeat = default_repeat;
  study.timeout_s = default_timeout;
  if (!node["name"]) {
    r.error(pos_of(node), fmt::format("{} needs a 'name'", what));
  } else if (auto name = r.scalar(node["name"], "study name")) {
    study.name = *name;
    if (!valid_name(study.name)) {
      r.error(pos_of(node["name"]), fmt::format("study name '{}' may use only letters, digits, '_', '.' and '-'", study.name));
    } else if (!study_names.insert(study.name).second) {
      r.error(pos_of(node["name"]), fmt::format("study name '{}' is used twice", study.name));
    }
  }
  const WorkloadSpec* workload = nullptr;
  if (!node["workload"]) {
    r.error(pos_of(node), fmt::format("{} needs a 'workload' (one of: {})", what, fmt::join(workload_names(), ", ")));
  } else if (auto w = r.scalar(node["workload"], "workload")) {
    study.workload = *w;
    workload = find_workload(*w);
    if (!workload) {
      r.error(pos_of(node["workload"]), fmt::format("unknown workload '{}'{}", *w, did_you_mean(*w, workload_names())));
    }
  }
  if (node["repeat"]) {
    if (auto v = r.integer(node["repeat"], "repeat", 1)) study.repeat = *v;
  }
  if (node["timeout_s"]) {
    if (auto v = r.number(node["timeout_s"], "timeout_s", 1)) study.timeout_s = *v;
  }
  if (node["defaults"]) read_defaults(r, node["defaults"], workload, study);
  if (node["matrix"]) read_matrix(r, node["matrix"], workload, study);
  if (const YAML::Node args = node["engine_args"]) {
    if (!args.IsSequence()) {
      r.error(pos_of(args), fmt::format("engine_args must be a list of strings, got {}", kind_name(args)));
    } else {
      for (const auto& a : args) {
        if (auto s = r.scalar(a, "engine argument")) study.engine_args.push_back(*s);
      }
    }
  }
  for (const auto& axis : study.axes) {
    for (const auto& d : study.defaults) {
      if (d.name == axis.name) {
        r.error(axis.pos, fmt::format("'{}' is both a default and a matrix axis; keep one", axis.name));
      }
    }
  }
  exp.studies.push_back(std::move(study));
}

void read_launcher(Reader& r, const YAML::Node& node, const std::filesystem::path& dir, Experiment& exp) {
  if (!r.check_map(node, "launcher", kLauncherKeys)) return;
  if (node["type"]) {
    if (auto type = r.scalar(node["type"], "launcher type")) {
      const std::vector<std::string> known = {"mpirun"};
      if (std::find(known.begin(), known.end(), *type) == known.end()) {
        r.error(pos_of(node["type"]), fmt::format("unknown launcher '{}'{}", *type, did_you_mean(*type, known)));
      }
      exp.launcher.type = *type;
    }
  }
  if (node["args"]) {
    if (!node["args"].IsSequence()) {
      r.error(pos_of(node["args"]), fmt::format("launcher args must be a list, got {}", kind_name(node["args"])));
    } else {
      for (const auto& a : node["args"]) {
        if (auto s = r.scalar(a, "launcher argument")) exp.launcher.extra_args.push_back(*s);
      }
    }
  }
  if (node["hostfile"]) {
    if (auto h = r.scalar(node["hostfile"], "hostfile")) {
      std::filesystem::path p = dir / *h;
      if (!std::filesystem::exists(p)) r.error(pos_of(node["hostfile"]), fmt::format("hostfile '{}' does not exist", p.string()));
      exp.launcher.hostfile = p;
    }
  }
}

}  // namespace

LoadResult load_experiment(const std::filesystem::path& file) {
  LoadResult result;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(file, ec);
  Reader r(file.string());
  if (!std::filesystem::is_regular_file(absolute, ec)) {
    r.error({}, "experiment file not found");
    result.errors = r.errors();
    return result;
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(absolute.string());
  } catch (const YAML::Exception& e) {
    r.error({e.mark.line + 1, e.mark.column + 1}, fmt::format("invalid YAML: {}", e.msg));
    result.errors = r.errors();
    return result;
  }
  Experiment exp;
  exp.file = absolute;
  if (root.IsNull()) {
    r.error({}, "experiment file is empty");
  } else if (r.check_map(root, "the experiment", kTopKeys)) {
    if (!root["name"]) {
      r.error({1, 1}, "the experiment needs a 'name'");
    } else if (auto name = r.scalar(root["name"], "name")) {
      exp.name = *name;
      if (!valid_name(exp.name)) {
        r.error(pos_of(root["name"]), fmt::format("experiment name '{}' may use only letters, digits, '_', '.' and '-'", exp.name));
      }
    }
    if (root["description"]) {
      if (auto d = r.scalar(root["description"], "description")) exp.description = *d;
    }
    int repeat = 1;
    double timeout = 600;
    if (root["repeat"]) repeat = r.integer(root["repeat"], "repeat", 1).value_or(1);
    if (root["timeout_s"]) timeout = r.number(root["timeout_s"], "timeout_s", 1).value_or(600);
    if (root["launcher"]) read_launcher(r, root["launcher"], absolute.parent_path(), exp);
    const YAML::Node studies = root["studies"];
    if (!studies) {
      r.error({1, 1}, "the experiment needs 'studies': a list of studies, each with a name, a workload and a matrix");
    } else if (!studies.IsSequence() || studies.size() == 0) {
      r.error(pos_of(studies), "'studies' must be a non-empty list");
    } else {
      std::set<std::string> names;
      for (size_t i = 0; i < studies.size(); ++i) read_study(r, studies[i], int(i), repeat, timeout, names, exp);
    }
  }
  result.errors = r.errors();
  if (result.errors.empty()) result.experiment = std::move(exp);
  return result;
}

}  // namespace mt
