#include "experiment/param_checker.h"

#include <regex>

#include <fmt/format.h>

namespace mt {
namespace {

bool valid_env_name(const std::string& s) {
  static const std::regex pattern("env\\.[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, pattern);
}

}  // namespace

bool ParamChecker::check_name(const std::string& name, SourcePos pos) {
  if (!workload_ || valid_env_name(name)) return true;
  if (name == kProfileParam && can_profile(*workload_)) {
    r_.error(pos,
             "'profile' is set by mtrun: write `profile: true` on the study, and each attempt writes its "
             "traces into its own run directory");
    return false;
  }
  if (workload_->find(name)) return true;
  if (workload_->free_form_params) {
    if (is_identifier(name)) return true;
    r_.error(pos, fmt::format("parameter name '{}' must be an identifier (letters, digits, '_')", name));
    return false;
  }
  r_.left_out(pos, fmt::format("unknown parameter '{}' for workload '{}'{}", name, workload_->name,
                               did_you_mean(name, workload_->param_names())));
  return false;
}

void ParamChecker::check_value(const std::string& name, const Value& value) {
  if (!workload_) return;
  if (const ParamSpec* spec = workload_->find(name)) {
    if (auto problem = check_param_value(*spec, value.text)) r_.error(value.pos, *problem);
  }
}

std::vector<Setting> ParamChecker::read_settings(const YAML::Node& node, const std::string& what) {
  std::vector<Setting> out;
  if (!node.IsMap()) {
    r_.error(pos_of(node), fmt::format("{} must be a mapping of parameter: value, got {}", what, kind_name(node)));
    return out;
  }
  for (const auto& kv : node) {
    std::string name = kv.first.Scalar();
    auto value = r_.value(kv.second, name);
    if (!value || !check_name(name, pos_of(kv.first))) continue;
    check_value(name, *value);
    out.push_back({name, *value});
  }
  return out;
}

}  // namespace mt
