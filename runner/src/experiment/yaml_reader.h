#pragma once
// Reading YAML with every problem recorded as a positioned diagnostic instead of thrown, so one
// pass over an experiment file reports all of its mistakes.
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "experiment/diagnostic.h"
#include "experiment/experiment.h"

namespace mt {

// 1-based; {0, 0} where yaml-cpp has no position (a node built in code).
SourcePos pos_of(const YAML::Mark& mark);
SourcePos pos_of(const YAML::Node& node);
// Names of experiments, studies and stages: a letter or digit, then letters, digits, '_', '.', '-'.
bool is_valid_name(const std::string& s);
// Parameter and derived-value names: letters, digits and '_', not starting with a digit.
bool is_identifier(const std::string& s);
const char* kind_name(const YAML::Node& node);

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  void error(SourcePos pos, std::string message) {
    errors_.push_back({file_, pos, std::move(message)});
    ++blocking_;
  }
  // A problem whose entry (an unknown key, an unknown parameter) is left out, leaving what remains
  // consistent: the rest can still be checked further, so its other problems are found in one pass.
  void left_out(SourcePos pos, std::string message) { errors_.push_back({file_, pos, std::move(message)}); }
  // What was read around a left_out() entry no longer holds without it (an exclude entry that lost
  // a parameter would exclude more): count that problem as blocking after all.
  void count_as_blocking() { ++blocking_; }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  // Problems that are not left_out(): after one, what was read may be inconsistent.
  std::size_t blocking_errors() const { return blocking_; }

  // Reports keys of `map` not in `allowed`; returns false if `map` is not a mapping.
  bool check_map(const YAML::Node& map, const std::string& what, const std::vector<std::string>& allowed);
  std::optional<std::string> scalar(const YAML::Node& node, const std::string& what);
  std::optional<Value> value(const YAML::Node& node, const std::string& what);
  std::optional<double> number(const YAML::Node& node, const std::string& what, double minimum);
  std::optional<int> integer(const YAML::Node& node, const std::string& what, int minimum);
  // A list of scalars (a single scalar counts as a list of one).
  std::vector<std::string> string_list(const YAML::Node& node, const std::string& what);

 private:
  std::string file_;
  std::vector<Diagnostic> errors_;
  std::size_t blocking_ = 0;
};

}  // namespace mt
