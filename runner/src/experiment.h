#pragma once
// The experiment file as the user wrote it, after validation: studies with their defaults and
// matrix axes, each value remembering where in the file it came from.
#include <filesystem>
#include <string>
#include <vector>

#include "diagnostic.h"

namespace mt {

// A scalar as written in the YAML file, with its position for later messages.
struct Value {
  std::string text;
  SourcePos pos;
};

struct Axis {
  std::string name;
  std::vector<Value> values;
  SourcePos pos;
};

struct Setting {
  std::string name;
  Value value;
};

struct Study {
  std::string name;
  std::string workload;
  int repeat = 1;
  double timeout_s = 600;
  std::vector<Setting> defaults;  // in file order
  std::vector<Axis> axes;         // in file order; the first axis varies slowest
  std::vector<std::string> engine_args;  // passed verbatim, for engine flags the runner does not know
  SourcePos pos;
};

struct LauncherConfig {
  std::string type = "mpirun";
  std::vector<std::string> extra_args;
  std::filesystem::path hostfile;  // absolute, or empty for the local machine
};

struct Experiment {
  std::string name;
  std::string description;
  std::filesystem::path file;  // absolute path of the YAML file
  LauncherConfig launcher;
  std::vector<Study> studies;
};

}  // namespace mt
