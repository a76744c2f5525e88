#include "experiment/experiment_check.h"

#include <algorithm>

#include "experiment/experiment_loader.h"

namespace mt {

CheckedExperiment check_experiment(const std::filesystem::path& file, const ExpansionLimits& limits) {
  CheckedExperiment checked;
  LoadResult loaded = load_experiment(file);
  checked.errors = std::move(loaded.errors);
  const Experiment* expandable = loaded.experiment  ? &*loaded.experiment
                                 : loaded.checkable ? &*loaded.checkable
                                                    : nullptr;
  if (!expandable || expandable->studies.empty()) return checked;
  checked.expansion = expand_experiment(*expandable, limits);
  for (auto& e : checked.expansion.errors) checked.errors.push_back(std::move(e));
  checked.expansion.errors.clear();
  // In the order of the file, as the user reads and fixes them (those without a place first).
  std::stable_sort(checked.errors.begin(), checked.errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  if (checked.errors.empty()) {
    checked.experiment = std::move(loaded.experiment);
  } else {
    checked.expansion = Expansion{};  // trials of a file with errors are never run
  }
  return checked;
}

}  // namespace mt
