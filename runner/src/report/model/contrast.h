#pragma once
// Two samples of one metric set against each other: ratio of means and a Welch t-test saying
// whether the difference stands out from run-to-run noise. Shared by `mtrun compare` (one group
// in two campaigns) and the report's study comparison (two studies in one campaign). Each pair
// gets one verdict per measurement: tokens/s and step time are one measurement seen two ways, so
// only the first is tested; when a table tests several pairs at once, the p-values are corrected
// together (Holm–Bonferroni) before any verdict.
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "experiment/metric_catalogue.h"
#include "stats.h"

namespace mt {

// Differences with a two-sided (Holm-adjusted) Welch p-value at or above this are within noise.
constexpr double kNoiseThreshold = 0.05;

enum class MetricRole {
  Tested,           // decides the verdict
  SameMeasurement,  // restates a tested metric (step time for tokens/s): shown, never tested again
  Context,          // shown beside the verdict, not tested (peak memory of a speed comparison)
};

struct KeyMetric {
  std::string name;
  int decimals = 2;
  MetricRole role = MetricRole::Tested;
  bool higher_is_better = false;    // a tested metric that reads as speed: "faster"/"slower"
  std::string restates;             // SameMeasurement: the tested metric's name
  Better better = Better::Unknown;  // which way is an improvement: "better"/"worse" verdicts, the regression gate
};

// A metric the catalogue knows (experiment/metric_catalogue.h), with its decimals and direction; a
// tested one whose direction is higher reads as speed ("faster"/"slower").
KeyMetric catalogue_metric(const std::string& name, MetricRole role = MetricRole::Tested, std::string restates = "");

// Which way is an improvement for `metric` in these groups: the catalogue's direction for a metric
// it knows, else the one a trial of either group declared (`better:` of a `command` metric).
Better metric_direction(const std::string& metric, const Group& a, const Group& b);

// The metrics that answer "faster?" for groups of a's kind, with their roles: training tests
// tokens/s, collectives algbw; kinds without a fixed list test every metric both groups have.
std::vector<KeyMetric> key_metrics(const Group& a, const Group& b);

struct Contrast {
  Summary a, b;
  std::optional<double> ratio;    // mean a ÷ mean b; nullopt for a zero or non-finite result
  std::optional<WelchTest> test;  // nullopt unless both sides have two or more values
};
Contrast contrast(const std::vector<double>& a, const std::vector<double>& b);

struct ContrastRow {
  std::string pair;                // what is compared: a group, or two studies at one configuration
  const Group* a_group = nullptr;  // the groups behind sides a and b
  const Group* b_group = nullptr;
  KeyMetric metric;
  Contrast contrast;
  std::optional<double> adjusted_p;  // Holm over every tested row of the table
  // "faster", "slower", "better", "worse", "higher", "lower", "within noise", "too few repeats",
  // "no ratio (mean 0)", "not finite", or the role
  std::string verdict;
};

// Why a tested row has no verdict beyond noise or within it: too few repeats, a zero mean to divide
// by, or values whose mean, spread, ratio or test overflowed a double (a result's 1e300 or inf).
enum class Untested { No, FewRepeats, ZeroMean, NotFinite };
Untested untested(const ContrastRow& r);
// The reason in words: "fewer than two successful repeats on a side", …; "" for Untested::No.
std::string untested_text(Untested why);

// Fills adjusted p-values and verdicts, correcting over every tested row with a p-value.
std::vector<ContrastRow> decide(std::vector<ContrastRow> rows);
// How many rows were tested (had a p-value).
int tested_count(const std::vector<ContrastRow>& rows);

struct ContrastColumns {
  std::string pair, a, b, ratio;  // "group", "B mean ± std (n)", "A mean ± std (n)", "B/A"
};
std::string render_contrasts(const std::vector<ContrastRow>& rows, const ContrastColumns& columns);

// How the verdicts of a table with `tested` tests were reached, for the text above it.
std::string verdict_rules(int tested);

// "< 0.001" or three decimals.
std::string p_text(double p);
// What follows "p" in a sentence: "< 0.001" or "= 0.042".
std::string p_relation(double p);

}  // namespace mt
