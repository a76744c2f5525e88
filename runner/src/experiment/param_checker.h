#pragma once
// Checks parameter names and values of a study (defaults, axes, stages) against its workload,
// reporting each problem at its place in the file.
#include <string>
#include <vector>

#include "experiment/workload_params.h"
#include "experiment/yaml_reader.h"

namespace mt {

class ParamChecker {
 public:
  ParamChecker(YamlReader& r, const WorkloadSpec* workload) : r_(r), workload_(workload) {}

  // False (after reporting) when `name` is not a parameter of the workload.
  bool check_name(const std::string& name, SourcePos pos);
  void check_value(const std::string& name, const Value& value);
  // A mapping of parameter: value, each checked; `what` names it in messages ("defaults").
  std::vector<Setting> read_settings(const YAML::Node& node, const std::string& what);

 private:
  YamlReader& r_;
  const WorkloadSpec* workload_;
};

}  // namespace mt
