#pragma once
// Reads and validates an experiment YAML file. Every problem found is reported, each with its
// file:line:column, so the user can fix them all in one go.
#include <filesystem>
#include <optional>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/experiment.h"

namespace mt {

struct LoadResult {
  std::optional<Experiment> experiment;  // set only when there are no errors
  std::vector<Diagnostic> errors;
  // When there are errors but the file could be read: the experiment with only the studies whose
  // own problems (if any) left the rest of them consistent, which can still be expanded to find
  // the problems expansion finds (see check_experiment).
  std::optional<Experiment> checkable;
};

LoadResult load_experiment(const std::filesystem::path& file);

}  // namespace mt
