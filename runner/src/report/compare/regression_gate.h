#pragma once
// `mtrun compare --fail-on-regression PCT`: did any matched configuration get worse by more than
// PCT % with a difference beyond noise? Judges the comparison's tested rows (contrast.h): a row is
// a regression when its metric has a direction, B is worse than A by more than PCT % of A's mean,
// and its Holm-adjusted Welch p is below kNoiseThreshold. Both conditions: a large change that the
// noise could explain is not a regression, nor is a real change smaller than PCT. A row whose
// values overflow a double (its mean, spread, ratio or test not finite) fails the gate: it cannot
// be judged, and passing it would hide it.
#include <string>
#include <vector>

#include "report/model/contrast.h"

namespace mt {

struct Regression {
  std::string configuration;
  std::string metric;
  double worse_by = 0;  // fraction of A's mean: 0.3 = 30 % worse
  double ratio = 0;     // mean B ÷ mean A
  double adjusted_p = 1;
};

struct GateOutcome {
  double threshold_pct = 0;
  int judged = 0;                       // tested rows with a direction and a p-value
  std::vector<Regression> failed;       // worst first
  std::vector<std::string> not_judged;  // "configuration metric: why", for rows it could not judge
  // "configuration metric", for rows with enough repeats whose values are not finite: a gate that
  // cannot judge what ran fails rather than pass it unseen.
  std::vector<std::string> not_finite;
  // "configuration: in B 3 of 3 trials failed (…)", for configurations whose trials failed in B
  // where A's did not: a crash is the largest regression there is, so it fails at any threshold.
  std::vector<std::string> failed_in_b;
  bool passed() const { return failed.empty() && not_finite.empty() && failed_in_b.empty(); }
};

GateOutcome judge_regressions(const std::vector<ContrastRow>& rows, double threshold_pct);

// How much worse B is than A for a metric with this direction (negative: better); nullopt when
// the direction is unknown.
std::optional<double> worsening(double ratio, Better better);

// The gate's section of the comparison: its rule, its verdict and every failed configuration.
std::string render_gate(const GateOutcome& gate);

// One line for the terminal: "regression gate (10 %): FAILED, 1 of 2 …" / "passed …".
std::string gate_summary(const GateOutcome& gate);

}  // namespace mt
