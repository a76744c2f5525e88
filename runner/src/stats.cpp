#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace mt {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size());
}

double sample_std(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  double m = mean(xs);
  double sum_sq = 0;
  for (double x : xs) sum_sq += (x - m) * (x - m);
  return std::sqrt(sum_sq / double(xs.size() - 1));
}

double median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  size_t mid = xs.size() / 2;
  return xs.size() % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

double median_absolute_deviation(const std::vector<double>& xs) {
  double m = median(xs);
  std::vector<double> deviations;
  deviations.reserve(xs.size());
  for (double x : xs) deviations.push_back(std::fabs(x - m));
  return median(deviations);
}

std::vector<double> mad_scores(const std::vector<double>& xs) {
  std::vector<double> scores(xs.size(), 0.0);
  double mad = median_absolute_deviation(xs);
  if (mad == 0) return scores;
  double m = median(xs);
  for (size_t i = 0; i < xs.size(); ++i) scores[i] = 0.6745 * std::fabs(xs[i] - m) / mad;
  return scores;
}

std::vector<size_t> mad_outliers(const std::vector<double>& xs) {
  std::vector<size_t> out;
  if (xs.size() < kMinOutlierSample) return out;
  auto scores = mad_scores(xs);
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] > kOutlierScore) out.push_back(i);
  }
  return out;
}

std::optional<double> coefficient_of_variation(const std::vector<double>& xs) {
  double m = mean(xs);
  if (xs.size() < 2 || m == 0) return std::nullopt;
  return sample_std(xs) / std::fabs(m);
}

namespace {

// The degrees of freedom of a sum of two squared standard errors `va` and `vb` (of `na` and `nb`
// values). It depends only on their ratio, so both are scaled by the larger first: squared as they
// are, values past 1e150 or so overflow and the answer comes out ∞/∞.
double welch_satterthwaite_df(double va, double na, double vb, double nb) {
  const double scale = std::max(va, vb);
  const double a = va / scale, b = vb / scale;
  return (a + b) * (a + b) / (a * a / (na - 1) + b * b / (nb - 1));
}

}  // namespace

double student_t_quantile(double p, double df) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

std::optional<Interval> mean_confidence_interval(const std::vector<double>& xs, double confidence) {
  if (xs.size() < 2) return std::nullopt;
  double n = double(xs.size());
  double half = student_t_quantile(1 - (1 - confidence) / 2, n - 1) * sample_std(xs) / std::sqrt(n);
  double m = mean(xs);
  if (!std::isfinite(half) || !std::isfinite(m)) return std::nullopt;  // values beyond a double's range
  return Interval{m - half, m + half};
}

std::optional<WelchTest> welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  double na = double(a.size()), nb = double(b.size());
  double va = sample_std(a) * sample_std(a) / na;  // squared standard errors
  double vb = sample_std(b) * sample_std(b) / nb;
  double diff = mean(a) - mean(b);
  // Values so far apart that their variance overflows a double: no test can be made of them.
  if (!std::isfinite(va + vb) || !std::isfinite(diff)) return std::nullopt;
  WelchTest result;
  if (va + vb == 0) {
    result.df = na + nb - 2;
    result.t = diff == 0 ? 0 : std::copysign(INFINITY, diff);
    result.p = diff == 0 ? 1 : 0;
    return result;
  }
  result.t = diff / std::sqrt(va + vb);
  result.df = welch_satterthwaite_df(va, na, vb, nb);
  if (!std::isfinite(result.t) || !std::isfinite(result.df)) return std::nullopt;
  boost::math::students_t_distribution<double> dist(result.df);
  result.p = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(result.t)));
  return result;
}

std::optional<TTest> one_sample_t_test(const std::vector<double>& xs, double mu) {
  if (xs.size() < 2) return std::nullopt;
  const double n = double(xs.size());
  const double se = sample_std(xs) / std::sqrt(n);
  const double diff = mean(xs) - mu;
  if (!std::isfinite(se) || !std::isfinite(diff)) return std::nullopt;  // beyond a double's range
  TTest result;
  result.df = n - 1;
  if (se == 0) {
    result.t = diff == 0 ? 0 : std::copysign(INFINITY, diff);
    result.p = diff == 0 ? 1 : 0;
    return result;
  }
  result.t = diff / se;
  boost::math::students_t_distribution<double> dist(result.df);
  result.p = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(result.t)));
  return result;
}

std::optional<Interval> ratio_confidence_interval(const std::vector<double>& a, const std::vector<double>& b,
                                                  double confidence) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const double na = double(a.size()), nb = double(b.size());
  const double ma = mean(a), mb = mean(b);
  const double va = sample_std(a) * sample_std(a) / na;  // squared standard errors of the means
  const double vb = sample_std(b) * sample_std(b) / nb;
  if (mb == 0) return std::nullopt;
  const double ratio = ma / mb;
  if (va + vb == 0) return Interval{ratio, ratio};
  const double wa = va, wb = ratio * ratio * vb;  // the two parts of SE(ρ)² at ρ = ratio
  const double df = welch_satterthwaite_df(wa, na, wb, nb);
  if (!std::isfinite(ratio) || !std::isfinite(df)) return std::nullopt;  // beyond a double's range
  const double t = student_t_quantile(1 - (1 - confidence) / 2, df);
  const double t2 = t * t;
  // (ma − ρ·mb)² = t²·(va + ρ²·vb), a quadratic A·ρ² − 2B·ρ + C = 0.
  const double A = mb * mb - t2 * vb, B = ma * mb, C = ma * ma - t2 * va;
  if (A <= 0) return std::nullopt;  // mean(b) not clearly away from zero: unbounded
  const double disc = B * B - A * C;
  if (disc < 0) return std::nullopt;
  const double root = std::sqrt(disc);
  return Interval{(B - root) / A, (B + root) / A};
}

Summary summarize(const std::vector<double>& xs) {
  Summary s;
  s.n = xs.size();
  if (xs.empty()) return s;
  s.mean = mean(xs);
  s.std = sample_std(xs);
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  s.ci95 = mean_confidence_interval(xs, 0.95);
  s.cv = coefficient_of_variation(xs);
  s.outliers = mad_outliers(xs);
  return s;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, double(p.size() - k) * p[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

}  // namespace mt
