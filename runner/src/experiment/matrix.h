#pragma once
// Expands an experiment's studies into trials: the cross product of each study's axes and zip
// groups, minus excluded combinations, plus included ones, with derived values computed and the
// where filter applied, every combination once per repeat.
#include <cstdint>
#include <string>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/experiment.h"
#include "experiment/trial.h"
#include "experiment/trial_list.h"

namespace mt {

// How many trials (combinations × repeats, before exclude and where) an experiment may expand
// to unless the user raises the limit (`--max-trials`): the count is checked before expanding.
constexpr std::uint64_t kDefaultMaxTrials = 100000;
// The most `--max-trials` may allow: beyond it no campaign is a plan anyone would run.
constexpr std::uint64_t kMostMaxTrials = 100000000;

struct ExpansionLimits {
  std::uint64_t max_trials = kDefaultMaxTrials;
};

struct Expansion {
  TrialList trials;                // in run order, built when read
  std::vector<Diagnostic> errors;  // trials the engine would reject, empty studies, expression errors
  std::int64_t excluded = 0;       // combinations removed by exclude lists
  std::int64_t filtered = 0;       // combinations removed by where filters
};

// Repeats are the outer loop, across studies too (every combination of every study once, then
// again), so slow drift of the machine spreads over every group instead of biasing whichever ran last.
// An experiment over `limits` is refused with one positioned error before anything is expanded.
Expansion expand_experiment(const Experiment& experiment, const ExpansionLimits& limits = {});

// The same trial in another repeat: identity recomputed from its group key (adaptive repeats add
// rounds beyond the plan's).
Trial with_repeat(Trial trial, int repeat);

// Hash over every trial identity in order: what the campaign will run.
std::string plan_hash(const TrialList& trials);

}  // namespace mt
