#include "commands/campaign_selection.h"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "experiment/input_bounds.h"
#include "runner_error.h"
#include "store/campaign_lookup.h"

namespace mt {

void require_database(const std::filesystem::path& db) {
  if (!std::filesystem::exists(db)) {
    throw RunnerError(kExitUsage,
                      fmt::format("no database at {} (run an experiment first, or pass --db)", db.string()));
  }
}

namespace {

// The `name` an experiment file gives, read on its own: the rest of the file may since have changed
// in ways the loader would refuse, and its campaigns are still worth following.
std::string name_in_experiment_file(const std::filesystem::path& file) {
  // Bounded as the loader bounds it: a file named by mistake (a log, a database) is not read whole.
  std::error_code error;
  if (const auto bytes = std::filesystem::file_size(file, error); !error && bytes > kMaxExperimentFileBytes) {
    throw RunnerError(kExitUsage, fmt::format("{}: not an experiment file ({:.1f} MiB; experiment files are at most "
                                              "{} MiB)",
                                              file.string(), double(bytes) / (1024.0 * 1024.0),
                                              kMaxExperimentFileBytes / (1024 * 1024)));
  }
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    if (root.IsMap() && root["name"] && root["name"].IsScalar()) return root["name"].Scalar();
  } catch (const YAML::Exception& e) {
    throw RunnerError(kExitUsage, fmt::format("{}: not an experiment file ({})", file.string(), e.what()));
  }
  throw RunnerError(kExitUsage, fmt::format("{}: the experiment file gives no 'name'", file.string()));
}

}  // namespace

std::string experiment_named(Database& db, const std::string& named) {
  const auto names = experiment_names(db);
  if (std::find(names.begin(), names.end(), named) != names.end()) return named;
  std::error_code error;
  if (std::filesystem::is_regular_file(named, error)) return name_in_experiment_file(named);
  return named;
}

}  // namespace mt
