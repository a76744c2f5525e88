#pragma once
// Descriptive and inferential statistics over repeated measurements: what a report needs to say
// how sure it is (confidence intervals, spread, outliers, whether two means differ beyond noise).
#include <optional>
#include <vector>

namespace mt {

double mean(const std::vector<double>& xs);
// Sample standard deviation (n − 1 in the denominator); 0 for fewer than two values.
double sample_std(const std::vector<double>& xs);
// Middle value (mean of the two middle ones for even n); 0 for no values.
double median(std::vector<double> xs);
// Median absolute deviation from the median (unscaled).
double median_absolute_deviation(const std::vector<double>& xs);

// Modified z-score 0.6745·|x − median| / MAD of every value (Iglewicz and Hoaglin). All zero when
// MAD is 0: with no spread among most values there is nothing to judge an outlier against.
std::vector<double> mad_scores(const std::vector<double>& xs);
constexpr double kOutlierScore = 3.5;
// Below this many values the MAD is too unstable to judge outliers by: with three, it is the
// smaller of two gaps, and ordinary noise scores past 3.5 about one time in four.
constexpr size_t kMinOutlierSample = 5;
// Indices of values whose MAD score exceeds kOutlierScore (none for fewer than kMinOutlierSample).
std::vector<size_t> mad_outliers(const std::vector<double>& xs);

// Sample std ÷ |mean|; nullopt for fewer than two values or a zero mean.
std::optional<double> coefficient_of_variation(const std::vector<double>& xs);

// Quantile p (0 < p < 1) of Student's t distribution with df > 0 degrees of freedom.
double student_t_quantile(double p, double df);

struct Interval {
  double low = 0;
  double high = 0;
};
// Two-sided confidence interval of the mean, mean ± t(1 − α/2, n − 1)·s/√n; nullopt for n < 2.
// Here and below, nullopt too where the values' mean or variance overflows a double (a result's
// hostile 1e300): no figure is better than an infinite or NaN one.
std::optional<Interval> mean_confidence_interval(const std::vector<double>& xs, double confidence = 0.95);

struct TTest {
  double t = 0;
  double df = 0;  // Welch–Satterthwaite for two samples, n − 1 for one
  double p = 1;   // two-sided
};
using WelchTest = TTest;
// Welch's unequal-variance t-test of mean(a) = mean(b); nullopt unless both have two or more values.
// When both samples have zero variance the means either agree exactly (p = 1) or not (p = 0).
std::optional<WelchTest> welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// One-sample t-test of mean(xs) = mu; nullopt for fewer than two values. With zero variance the
// mean either is mu exactly (p = 1) or not (p = 0).
std::optional<TTest> one_sample_t_test(const std::vector<double>& xs, double mu = 0);

// Confidence interval of mean(a) ÷ mean(b) for two independent samples, by Fieller's theorem: the
// values ρ for which mean(a) − ρ·mean(b) is within t·SE(ρ) of zero, SE(ρ)² = s_a²/n_a + ρ²·s_b²/n_b,
// with Welch–Satterthwaite degrees of freedom taken at ρ = the ratio itself. Unlike the delta
// method it is not symmetric around the ratio, and it stays right when mean(b) is known loosely.
// nullopt unless both have two or more values, or when mean(b) is not clearly away from zero
// (the set of such ρ is then unbounded).
std::optional<Interval> ratio_confidence_interval(const std::vector<double>& a, const std::vector<double>& b,
                                                  double confidence = 0.95);

// Holm–Bonferroni adjusted p-values for m tests made together, in the input order: the k-th
// smallest p times (m − k + 1), made monotone and capped at 1. Rejecting where the adjusted p is
// below α keeps the chance of any false "differs" at α over the whole family.
std::vector<double> holm_adjust(const std::vector<double>& p);

// Everything a report shows about one metric of one group of repeats.
struct Summary {
  size_t n = 0;
  double mean = 0;
  double std = 0;
  double min = 0;
  double max = 0;
  std::optional<Interval> ci95;
  std::optional<double> cv;
  std::vector<size_t> outliers;  // indices into the values summarised
};
Summary summarize(const std::vector<double>& xs);

}  // namespace mt
