#include "report/compare/regression_gate.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/render/cells.h"

namespace mt {
namespace {

const char* const kNotFiniteWords = "not judged (values not finite)";

}  // namespace

std::optional<double> worsening(double ratio, Better better) {
  switch (better) {
    case Better::Higher: return 1 - ratio;
    case Better::Lower: return ratio - 1;
    case Better::Unknown: break;
  }
  return std::nullopt;
}

GateOutcome judge_regressions(const std::vector<ContrastRow>& rows, double threshold_pct) {
  GateOutcome gate;
  gate.threshold_pct = threshold_pct;
  for (const auto& r : rows) {
    if (r.metric.role != MetricRole::Tested) continue;
    const std::string what = fmt::format("{} {}", r.pair, r.metric.name);
    if (r.metric.better == Better::Unknown) {
      gate.not_judged.push_back(what + ": no direction (declare `better: higher|lower` beside its regex/json)");
      continue;
    }
    if (const Untested why = untested(r); why == Untested::NotFinite) {
      gate.not_finite.push_back(what);
      continue;
    } else if (why != Untested::No) {
      gate.not_judged.push_back(what + ": " + untested_text(why));
      continue;
    }
    ++gate.judged;
    const double worse = *worsening(*r.contrast.ratio, r.metric.better);
    if (worse * 100 > threshold_pct && *r.adjusted_p < kNoiseThreshold) {
      gate.failed.push_back({r.pair, r.metric.name, worse, *r.contrast.ratio, *r.adjusted_p});
    }
  }
  std::stable_sort(gate.failed.begin(), gate.failed.end(),
                   [](const Regression& x, const Regression& y) { return x.worse_by > y.worse_by; });
  return gate;
}

std::string gate_summary(const GateOutcome& gate) {
  if (gate.passed()) {
    return fmt::format(
        "regression gate ({:g} %): passed; nothing is worse by more than {:g} % beyond noise ({} judged{})",
        gate.threshold_pct, gate.threshold_pct, gate.judged,
        gate.not_judged.empty() ? "" : fmt::format(", {} not judged", gate.not_judged.size()));
  }
  std::string failed;
  for (const auto& f : gate.failed) {
    failed +=
        fmt::format("{}{} {} {} worse", failed.empty() ? "" : "; ", f.configuration, f.metric, percent(f.worse_by));
  }
  for (const auto& what : gate.not_finite) {
    failed += fmt::format("{}{} {}", failed.empty() ? "" : "; ", what, kNotFiniteWords);
  }
  for (const auto& what : gate.failed_in_b) failed += fmt::format("{}{}", failed.empty() ? "" : "; ", what);
  std::string unjudged =
      gate.not_finite.empty() ? "" : fmt::format(", {} not judged: values not finite", gate.not_finite.size());
  if (!gate.failed_in_b.empty()) unjudged += fmt::format(", {} failed in B", gate.failed_in_b.size());
  return fmt::format("regression gate ({:g} %): FAILED ({} of {} judged{}): {}", gate.threshold_pct, gate.failed.size(),
                     gate.judged, unjudged, failed);
}

std::string render_gate(const GateOutcome& gate) {
  std::string out = fmt::format(
      "## Regression gate\n\n"
      "`--fail-on-regression {0:g}`: a configuration fails when B is worse than A by more than {0:g} % of A's mean "
      "(in its metric's better direction) *and* the difference is beyond noise (p (Holm) < {1:.2f}). Attempts on a "
      "disturbed machine are left out unless kept, as in reports.\n\n",
      gate.threshold_pct, kNoiseThreshold);
  if (gate.passed()) {
    out += fmt::format("**Passed**: none of {} judged comparison{} is worse by more than {:g} % beyond noise.\n",
                       gate.judged, gate.judged == 1 ? "" : "s", gate.threshold_pct);
  } else if (!gate.failed.empty()) {
    out += fmt::format("**Failed**: {} of {} judged comparison{} worse by more than {:g} % beyond noise:\n\n",
                       gate.failed.size(), gate.judged, gate.judged == 1 ? " is" : "s are", gate.threshold_pct);
    for (const auto& f : gate.failed) {
      out += fmt::format("- {} — {}: {} worse (B/A {}, p (Holm) {})\n", f.configuration, f.metric, percent(f.worse_by),
                         fixed(f.ratio, 3), p_text(f.adjusted_p));
    }
  }
  if (!gate.not_finite.empty()) {
    out += fmt::format(
        "{}**Failed**: {} comparison{} could not be judged, and the gate does not pass what it cannot judge: {}\n\n",
        gate.failed.empty() ? "" : "\n", gate.not_finite.size(), gate.not_finite.size() == 1 ? "" : "s",
        untested_text(Untested::NotFinite));
    for (const auto& what : gate.not_finite) out += "- " + what + "\n";
  }
  if (!gate.failed_in_b.empty()) {
    out += fmt::format(
        "{}**Failed**: {} configuration{} failed in B where {} succeeded in A; a failure is a regression "
        "at any threshold:\n\n",
        gate.failed.empty() && gate.not_finite.empty() ? "" : "\n", gate.failed_in_b.size(),
        gate.failed_in_b.size() == 1 ? "" : "s", gate.failed_in_b.size() == 1 ? "it" : "they");
    for (const auto& what : gate.failed_in_b) out += "- " + what + "\n";
  }
  if (!gate.not_judged.empty()) {
    out += "\nNot judged:\n\n";
    for (const auto& line : gate.not_judged) out += "- " + line + "\n";
  }
  return out;
}

}  // namespace mt
