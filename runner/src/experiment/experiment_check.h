#pragma once
// Every problem of an experiment file in one pass: those found reading it, and those found
// expanding its matrices (relations between parameters, studies left without trials, the size
// limit) — the latter for every study that read consistently, even when others did not, so the
// user never fixes one round of mistakes only to be shown the next.
#include <filesystem>
#include <optional>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/experiment.h"
#include "experiment/matrix.h"

namespace mt {

struct CheckedExperiment {
  std::optional<Experiment> experiment;  // set only when there are no errors
  Expansion expansion;                   // its trials when there are none
  std::vector<Diagnostic> errors;        // reading's and expansion's, in the order of the file
};

CheckedExperiment check_experiment(const std::filesystem::path& file, const ExpansionLimits& limits = {});

}  // namespace mt
