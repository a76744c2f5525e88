#include "report/model/campaign_drift.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "report/model/contrast.h"
#include "report/render/cells.h"

namespace mt {
namespace {

struct Point {
  std::string started_at;
  std::size_t configuration = 0;
  double deviation = 0;  // step time ÷ the configuration's mean − 1
  double place = 0;      // in the campaign's start order, 0 to 1; then less its configuration's mean place
  bool rerun = false;    // the trial's second attempt or later
};

// The fit through one campaign's points, each configuration's places centred on their own mean.
std::optional<CampaignDrift> fit(const std::string& campaign_id, std::vector<Point> points,
                                 std::size_t configurations) {
  const std::size_t n = points.size();
  if (configurations < 1 || n < configurations + 1 + 5) return std::nullopt;
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.started_at < b.started_at; });
  std::vector<double> place_sum(configurations, 0), count(configurations, 0);
  for (std::size_t i = 0; i < n; ++i) {
    points[i].place = double(i) / double(n - 1);
    place_sum[points[i].configuration] += points[i].place;
    count[points[i].configuration] += 1;
  }
  double sxx = 0, sxy = 0;
  for (auto& p : points) {
    p.place -= place_sum[p.configuration] / count[p.configuration];
    sxx += p.place * p.place;
    sxy += p.place * p.deviation;
  }
  if (!(sxx > 0)) return std::nullopt;
  CampaignDrift drift;
  drift.campaign_id = campaign_id;
  drift.attempts = n;
  drift.configurations = configurations;
  drift.reruns = std::size_t(std::count_if(points.begin(), points.end(), [](const Point& p) { return p.rerun; }));
  drift.change = sxy / sxx;
  double residuals = 0;
  for (const auto& p : points) residuals += std::pow(p.deviation - drift.change * p.place, 2);
  const double df = double(n - configurations - 1);
  const double se = std::sqrt(residuals / df / sxx);
  if (!std::isfinite(drift.change) || !std::isfinite(se)) return std::nullopt;
  if (se == 0) {
    drift.p = drift.change == 0 ? 1.0 : 0.0;
  } else {
    boost::math::students_t_distribution<double> t(df);
    drift.p = 2 * boost::math::cdf(boost::math::complement(t, std::fabs(drift.change / se)));
  }
  return drift;
}

}  // namespace

std::vector<CampaignDrift> campaign_drifts(const std::vector<const Group*>& groups) {
  std::vector<std::string> campaigns;
  std::map<std::string, std::vector<Point>> points;
  std::map<std::string, std::size_t> configurations;
  for (const Group* g : groups) {
    // The group's attempts by campaign (a report over several campaigns pools their repeats): when
    // each started and its step time.
    std::map<std::string, std::vector<std::pair<const ReportTrial*, double>>> by_campaign;
    for (const ReportTrial* t : g->succeeded) {
      const auto step = t->metric("step_time_ms");
      if (step && std::isfinite(*step) && *step > 0 && !t->succeeded_started_at.empty()) {
        by_campaign[t->campaign_id].emplace_back(t, *step);
      }
    }
    for (const auto& [campaign, attempts] : by_campaign) {
      if (attempts.size() < kMinCampaignDriftRepeats) continue;
      double sum = 0;
      for (const auto& attempt : attempts) sum += attempt.second;
      const double m = sum / double(attempts.size());
      if (!std::isfinite(m)) continue;
      if (std::find(campaigns.begin(), campaigns.end(), campaign) == campaigns.end()) campaigns.push_back(campaign);
      const std::size_t configuration = configurations[campaign]++;
      for (const auto& [t, step] : attempts) {
        points[campaign].push_back(
            {t->succeeded_started_at, configuration, step / m - 1, 0, t->succeeded_attempt.value_or(1) > 1});
      }
    }
  }
  std::vector<CampaignDrift> out;
  for (const auto& campaign : campaigns) {
    if (auto drift = fit(campaign, points[campaign], configurations[campaign])) out.push_back(*drift);
  }
  return out;
}

std::string campaign_drift_text(const CampaignDrift& d, bool name_campaign) {
  const std::string reruns = d.reruns == 0   ? ""
                             : d.reruns == 1 ? ", one of them a re-run"
                                             : fmt::format(", {} of them re-runs", d.reruns);
  return fmt::format(
      "{}step times moved {} from the first attempt to the last ({} attempts of {} configurations, each against its "
      "own mean, in the order they started{}; p {})",
      name_campaign ? fmt::format("in campaign `{}`, ", d.campaign_id) : "", signed_percent(d.change), d.attempts,
      d.configurations, reruns, d.p ? p_relation(*d.p) : "unknown");
}

}  // namespace mt
