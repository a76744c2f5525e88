#pragma once
// Two campaigns side by side: configurations matched by the parameters that did not change (the
// changed ones named with both values), the means of their key metrics, their ratio and a Welch
// t-test saying whether the difference stands out from the run-to-run noise; what differs in the
// machine, software stack and calibration; and, when asked, the regression gate's verdict.
#include <optional>
#include <string>

#include "report/compare/config_matching.h"
#include "report/compare/regression_gate.h"
#include "report/model/results_source.h"

namespace mt {

struct ComparisonOptions {
  MatchRules match;
  std::optional<double> fail_on_regression_pct;  // the gate's threshold; nullopt: no gate
  bool allow_different_stack = false;
  bool keep_disturbed = false;  // average attempts run on a disturbed machine in (as a campaign may ask)
  std::string a_label;          // how A is introduced ("baseline `main`"); "" for a plain campaign
};

struct ComparisonOutcome {
  std::string markdown;
  std::optional<GateOutcome> gate;  // with fail_on_regression_pct
  std::string stack_note;           // "" when the stacks agree; else what differs, for the terminal
};

// Throws RunnerError: kExitIncomparable when the campaigns ran on different machines or stacks
// (stack_difference.h) and that was not allowed, naming what differs; kExitUsage for bad --match/
// --ignore names, and for a gate with nothing it could judge.
ComparisonOutcome compare_campaigns(const ReportData& a, const ReportData& b, const ComparisonOptions& options);

// The comparison without a gate, allowing any stack (labelled as such).
std::string render_comparison(const ReportData& a, const ReportData& b);

}  // namespace mt
