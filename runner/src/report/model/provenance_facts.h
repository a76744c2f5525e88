#pragma once
// What each missing provenance fact means and what to do about it: a report states every fact that
// trials lack once, with how many trials it affects, instead of repeating it for each trial.
#include <string>
#include <vector>

namespace mt {

struct MissingFact {
  std::string key;     // "clean_build", or "software_stack" for all of a program's unreported fields
  std::string fields;  // the recorded names it covers, as a reader searches for them; empty for a
                       // description that names no field ("provenance record")
  std::string what;    // "ran an engine built from a tree with uncommitted changes"
  std::string fix;     // "rebuild the engine from a clean checkout (`scripts/setup.sh`)"
  int trials = 0;
};

// The facts the trials' missing lists name, in order of first appearance, each counted once per
// trial. `missing_per_trial` holds one list per incomplete trial.
std::vector<MissingFact> missing_facts(const std::vector<std::vector<std::string>>& missing_per_trial);

// "- 24 of 24 trials ran an engine built from a tree with uncommitted changes (`clean_build`):
// rebuild the engine from a clean checkout (`scripts/setup.sh`)."
std::string fact_line(const MissingFact& fact, int included);

}  // namespace mt
