#pragma once
// Expands an experiment's studies into trials: the cross product of each study's axes, every
// combination once per repeat.
#include <string>
#include <vector>

#include "experiment.h"
#include "trial.h"

namespace mt {

// Trials in run order. Repeats are the outer loop (all combinations once, then again), so slow
// drift of the machine spreads over every group instead of biasing whichever ran last.
std::vector<Trial> expand_experiment(const Experiment& experiment);

// Hash over every trial identity in order: what the campaign will run.
std::string plan_hash(const std::vector<Trial>& trials);

}  // namespace mt
