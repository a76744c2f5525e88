#include "experiment/yaml_reader.h"

#include <algorithm>
#include <map>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "experiment/workload_params.h"

namespace mt {

SourcePos pos_of(const YAML::Mark& mark) {
  if (mark.line < 0) return {};
  return {mark.line + 1, mark.column + 1};
}

SourcePos pos_of(const YAML::Node& node) { return pos_of(node.Mark()); }

bool is_valid_name(const std::string& s) {
  static const std::regex pattern("[A-Za-z0-9][A-Za-z0-9_.-]*");
  return std::regex_match(s, pattern);
}

bool is_identifier(const std::string& s) {
  static const std::regex pattern("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, pattern);
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

bool YamlReader::check_map(const YAML::Node& map, const std::string& what, const std::vector<std::string>& allowed) {
  if (!map.IsMap()) {
    error(pos_of(map), fmt::format("{} must be a mapping, got {}", what, kind_name(map)));
    return false;
  }
  // YAML leaves a key given twice to the reader, which would take the first and drop the rest: a
  // second `studies:` block would never run.
  std::map<std::string, SourcePos> seen;
  for (const auto& kv : map) {
    std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      left_out(pos_of(kv.first), fmt::format("unknown key '{}' in {}{}", key, what, did_you_mean(key, allowed)));
    } else if (const auto [first, fresh] = seen.emplace(key, pos_of(kv.first)); !fresh) {
      error(pos_of(kv.first),
            fmt::format("'{}' is set twice in {} (also at line {}); keep one", key, what, first->second.line));
    }
  }
  return true;
}

std::optional<std::string> YamlReader::scalar(const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) {
    error(pos_of(node), fmt::format("{} must be a scalar, got {}", what, kind_name(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<Value> YamlReader::value(const YAML::Node& node, const std::string& what) {
  auto text = scalar(node, what);
  if (!text) return std::nullopt;
  return Value{*text, pos_of(node)};
}

std::optional<double> YamlReader::number(const YAML::Node& node, const std::string& what, double minimum) {
  auto text = scalar(node, what);
  if (!text) return std::nullopt;
  ParamSpec spec{what, ParamType::Number, {}, minimum};
  if (auto problem = check_param_value(spec, *text)) {
    error(pos_of(node), *problem);
    return std::nullopt;
  }
  return std::strtod(text->c_str(), nullptr);  // checked above: finite, whole text
}

std::optional<int> YamlReader::integer(const YAML::Node& node, const std::string& what, int minimum) {
  auto text = scalar(node, what);
  if (!text) return std::nullopt;
  ParamSpec spec{what, ParamType::Integer, {}, double(minimum)};
  if (auto problem = check_param_value(spec, *text)) {
    error(pos_of(node), *problem);
    return std::nullopt;
  }
  return int(std::strtoll(text->c_str(), nullptr, 10));  // checked above: within int
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (auto s = scalar(item, what)) out.push_back(*s);
    }
  } else {
    error(pos_of(node), fmt::format("{} must be a list of strings, got {}", what, kind_name(node)));
  }
  return out;
}

}  // namespace mt
