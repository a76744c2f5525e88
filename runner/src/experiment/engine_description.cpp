#include "experiment/engine_description.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace mt {
namespace {

ParamType param_type(const std::string& type, const std::string& param) {
  if (type == "integer") return ParamType::Integer;
  if (type == "number") return ParamType::Number;
  if (type == "choice") return ParamType::Choice;
  if (type == "boolean") return ParamType::Boolean;
  if (type == "text") return ParamType::Text;
  throw std::runtime_error("parameter '" + param + "' has a type mtrun does not know: " + type);
}

std::string default_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  if (value.is_number()) {
    std::string text = nlohmann::json(value.get<double>()).dump();  // shortest round-trip form
    return text;
  }
  return "";
}

}  // namespace

WorkloadSpec parse_workload_description(const std::string& json_text) {
  const auto doc = nlohmann::json::parse(json_text);  // throws a parse_error naming the byte
  WorkloadSpec spec;
  spec.name = doc.at("subcommand").get<std::string>();
  spec.engine_subcommand = spec.name;
  for (const auto& option : doc.at("options")) {
    if (!option.value("experiment_param", true)) continue;  // set by mtrun itself (--output)
    const std::string name = option.at("param").get<std::string>();
    if (option.value("repeatable", false)) continue;  // given several times: engine_args, not a matrix value
    ParamSpec p{name, param_type(option.at("type").get<std::string>(), name)};
    if (option.contains("choices")) p.choices = option.at("choices").get<std::vector<std::string>>();
    p.minimum = option.value("minimum", -1e300);
    p.maximum = option.value("maximum", p.type == ParamType::Integer ? double(INT_MAX) : 1e300);
    // The runner reads integers as int: a wider engine bound is narrowed to what it can pass on.
    if (p.type == ParamType::Integer && p.maximum > INT_MAX) p.maximum = INT_MAX;
    p.exclusive_minimum = option.value("exclusive_minimum", false);
    p.exclusive_maximum = option.value("exclusive_maximum", false);
    p.default_value = default_text(option.at("default"));
    spec.params.push_back(std::move(p));
  }
  for (const auto& c : doc.value("constraints", nlohmann::json::array())) {
    ParamRelation r{c.at("relation").get<std::string>(), c.at("a").get<std::string>(), c.at("b").get<std::string>()};
    if (r.relation != "divides" && r.relation != "at_most")
      throw std::runtime_error("relation '" + r.relation + "' between " + r.a + " and " + r.b + " is unknown to mtrun");
    spec.relations.push_back(std::move(r));
  }
  return spec;
}

}  // namespace mt
