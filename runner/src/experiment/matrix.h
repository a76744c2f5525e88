#pragma once
// Expands an experiment's studies into trials: the cross product of each study's axes and zip
// groups, minus excluded combinations, plus included ones, with derived values computed and the
// where filter applied, every combination once per repeat.
#include <string>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/experiment.h"
#include "experiment/trial.h"

namespace mt {

struct Expansion {
  std::vector<Trial> trials;       // in run order
  std::vector<Diagnostic> errors;  // trials the engine would reject, empty studies, expression errors
  int excluded = 0;                // combinations removed by exclude lists
  int filtered = 0;                // combinations removed by where filters
};

// Repeats are the outer loop, across studies too (every combination of every study once, then
// again), so slow drift of the machine spreads over every group instead of biasing whichever ran last.
Expansion expand_experiment(const Experiment& experiment);

// Hash over every trial identity in order: what the campaign will run.
std::string plan_hash(const std::vector<Trial>& trials);

}  // namespace mt
