#include <cmath>

#include <doctest/doctest.h>

#include "stats.h"
#include "run/summary.h"

using namespace mt;

TEST_CASE("mean and sample standard deviation match hand-computed values") {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sample variance 32/7
  std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9};
  CHECK(mean(xs) == doctest::Approx(5.0));
  CHECK(sample_std(xs) == doctest::Approx(2.1380899));
  CHECK(sample_std({3.0}) == 0.0);
  CHECK(mean({}) == 0.0);
}

TEST_CASE("mean ± std formatting") {
  CHECK(format_mean_std({10, 12}, 1) == "11.0 ± 1.4");
  CHECK(format_mean_std({}, 1) == "-");
}

TEST_CASE("median and median absolute deviation") {
  CHECK(median({3, 1, 2}) == 2.0);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  // 1, 2, 3, 4, 100: median 3, deviations 2, 1, 0, 1, 97 → MAD 1
  CHECK(median_absolute_deviation({1, 2, 3, 4, 100}) == 1.0);
}

TEST_CASE("MAD outliers use the modified z-score 0.6745·|x − median| / MAD > 3.5") {
  std::vector<double> xs = {10, 11, 12, 11, 30};  // median 11, MAD 1: 30 scores 0.6745·19 = 12.8
  auto scores = mad_scores(xs);
  CHECK(scores[4] == doctest::Approx(12.8155));
  CHECK(scores[0] == doctest::Approx(0.6745));
  CHECK(mad_outliers(xs) == std::vector<size_t>{4});
  // 16 scores 0.6745·5 = 3.37: not an outlier; 17 scores 4.05: one.
  CHECK(mad_outliers({10, 11, 12, 11, 16}).empty());
  CHECK(mad_outliers({10, 11, 12, 11, 17}) == std::vector<size_t>{4});
  CHECK(mad_outliers({5, 5, 5, 5, 9}).empty());  // MAD 0: no spread to judge against
  CHECK(mad_outliers({10, 10.1, 13}).empty());   // three values: too few to call one an outlier
  CHECK(mad_outliers({1, 100}).empty());         // two values are never outliers of each other
}

TEST_CASE("Student t quantiles match table values") {
  CHECK(student_t_quantile(0.975, 1) == doctest::Approx(12.706205).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 2) == doctest::Approx(4.302653).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 4) == doctest::Approx(2.776445).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 9) == doctest::Approx(2.262157).epsilon(1e-6));
  CHECK(student_t_quantile(0.95, 10) == doctest::Approx(1.812461).epsilon(1e-6));
  CHECK(student_t_quantile(0.995, 30) == doctest::Approx(2.749996).epsilon(1e-6));
}

TEST_CASE("95% confidence interval of the mean uses t(0.975, n − 1)") {
  // 10, 12, 14: mean 12, s = 2, half-width 4.302653·2/√3 = 4.968275
  auto ci = mean_confidence_interval({10, 12, 14});
  REQUIRE(ci);
  CHECK(ci->low == doctest::Approx(12 - 4.968275));
  CHECK(ci->high == doctest::Approx(12 + 4.968275));
  // 1..10: mean 5.5, s = 3.0276504, half-width 2.262157·s/√10 = 2.165852
  std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ci = mean_confidence_interval(ten);
  REQUIRE(ci);
  CHECK(ci->high - 5.5 == doctest::Approx(2.165852));
  CHECK_FALSE(mean_confidence_interval({1.0}).has_value());
}

TEST_CASE("coefficient of variation is std ÷ |mean|") {
  CHECK(*coefficient_of_variation({10, 12, 14}) == doctest::Approx(2.0 / 12.0));
  CHECK_FALSE(coefficient_of_variation({5.0}).has_value());
  CHECK_FALSE(coefficient_of_variation({-1, 1}).has_value());
}

TEST_CASE("Welch t-test matches a worked example") {
  // Wikipedia's "Welch's t-test" example 1: t = −2.46, ν = 24.99, p = 0.021.
  std::vector<double> a = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
  std::vector<double> b = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
  auto w = welch_t_test(a, b);
  REQUIRE(w);
  CHECK(w->t == doctest::Approx(-2.455356).epsilon(1e-6));
  CHECK(w->df == doctest::Approx(24.988529).epsilon(1e-6));
  CHECK(w->p == doctest::Approx(0.021378).epsilon(1e-4));
  // Small unequal samples: 10, 12, 11 vs 14, 15, 13, 16 → t = −4.0415, ν = 4.959, p = 0.010077
  w = welch_t_test({10, 12, 11}, {14, 15, 13, 16});
  REQUIRE(w);
  CHECK(w->df == doctest::Approx(4.959184).epsilon(1e-6));
  CHECK(w->p == doctest::Approx(0.010077).epsilon(1e-4));
  CHECK(welch_t_test({1, 1}, {1, 1})->p == 1.0);
  CHECK(welch_t_test({1, 1}, {2, 2})->p == 0.0);
  CHECK_FALSE(welch_t_test({1}, {2, 3}).has_value());
}

TEST_CASE("one-sample t-test against a known mean") {
  // 1..5 against 2: t = √2, ν = 4, two-sided p = 0.230200 (the t distribution's CDF in closed form for ν = 4).
  auto t = one_sample_t_test({1, 2, 3, 4, 5}, 2);
  REQUIRE(t);
  CHECK(t->t == doctest::Approx(std::sqrt(2.0)).epsilon(1e-9));
  CHECK(t->df == 4);
  CHECK(t->p == doctest::Approx(0.230200).epsilon(1e-5));
  t = one_sample_t_test({5.2, 4.8, 5.9, 6.1, 5.5, 5.7}, 5);  // t = 2.743977, ν = 5, p = 0.040600
  REQUIRE(t);
  CHECK(t->t == doctest::Approx(2.743977).epsilon(1e-6));
  CHECK(t->p == doctest::Approx(0.040600).epsilon(1e-4));
  CHECK(one_sample_t_test({3, 3}, 3)->p == 1.0);
  CHECK(one_sample_t_test({3, 3}, 0)->p == 0.0);
  CHECK_FALSE(one_sample_t_test({3}).has_value());
}

TEST_CASE("values beyond a double's range give no interval and no test, and nothing throws") {
  // 1e300 and −1e300: the mean is 0, the variance overflows to infinity, and the Welch–Satterthwaite
  // degrees of freedom would be ∞/∞ (NaN), which Boost's t distribution refuses with an exception.
  const std::vector<double> huge = {1e300, -1e300}, small = {1, 2, 3};
  CHECK_FALSE(mean_confidence_interval(huge).has_value());
  CHECK_FALSE(welch_t_test(huge, small).has_value());
  CHECK_FALSE(welch_t_test(small, huge).has_value());
  CHECK_FALSE(one_sample_t_test(huge).has_value());
  CHECK_FALSE(ratio_confidence_interval(huge, small).has_value());
  CHECK_FALSE(ratio_confidence_interval(small, huge).has_value());
  // Large but representable values still are tested.
  CHECK(welch_t_test({1e150, 1.1e150}, {1e150, 1.2e150}).has_value());
}

TEST_CASE("summary of one metric") {
  auto s = summarize({10, 11, 12, 11, 30});
  CHECK(s.n == 5);
  CHECK(s.min == 10);
  CHECK(s.max == 30);
  CHECK(s.outliers == std::vector<size_t>{4});
  REQUIRE(s.ci95);
  REQUIRE(s.cv);
}

TEST_CASE("Holm–Bonferroni: the k-th smallest p times (m − k + 1), monotone, capped at 1, in input order") {
  // Sorted 0.01, 0.03, 0.04 → 0.03, 0.06, max(0.06, 0.04) = 0.06.
  auto adjusted = holm_adjust({0.01, 0.04, 0.03});
  REQUIRE(adjusted.size() == 3);
  CHECK(adjusted[0] == doctest::Approx(0.03));
  CHECK(adjusted[1] == doctest::Approx(0.06));
  CHECK(adjusted[2] == doctest::Approx(0.06));
  CHECK(holm_adjust({0.2}) == std::vector<double>{0.2});  // one test: nothing to correct
  CHECK(holm_adjust({0.6, 0.7})[1] == doctest::Approx(1.0));
  CHECK(holm_adjust({}).empty());
}
