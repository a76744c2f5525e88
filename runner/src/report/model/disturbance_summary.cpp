#include "report/model/disturbance_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/run_order.h"
#include "report/model/groups.h"
#include "run/adaptive_repeats.h"
#include "stats.h"
#include "store/campaign_measurement.h"

namespace mt {
namespace {

// Disturbed attempts named one by one up to this many; beyond it the report counts them.
constexpr std::size_t kNamedDisturbances = 10;

std::string trial_name(const ReportTrial& t) {
  return fmt::format("{} rep {}", configuration_name(t.study, t.strategy, t.ranks, trial_config(t)), t.repeat_index);
}

}  // namespace

std::vector<std::string> disturbance_warnings(const std::vector<ReportTrial>& trials, bool keep_disturbed) {
  std::vector<std::string> out;
  std::vector<const ReportTrial*> disturbed;
  for (const auto& t : trials) {
    if (t.succeeded() && t.disturbed()) disturbed.push_back(&t);
  }
  if (disturbed.empty()) return out;
  std::vector<std::string> named;
  for (std::size_t i = 0; i < disturbed.size() && i < kNamedDisturbances; ++i) {
    named.push_back(fmt::format("`{}` ({})", trial_name(*disturbed[i]), fmt::join(disturbed[i]->disturbances, "; ")));
  }
  if (disturbed.size() > kNamedDisturbances)
    named.push_back(fmt::format("and {} more", disturbed.size() - kNamedDisturbances));
  out.push_back(fmt::format("{} attempt{} ran on a disturbed machine: {}. {}", disturbed.size(),
                            disturbed.size() == 1 ? "" : "s", fmt::join(named, ", "),
                            keep_disturbed ? "They are averaged in with the rest (kept on request)."
                                           : fmt::format("{} left out of the means (`mtrun report --keep-disturbed` "
                                                         "keeps them, `mtrun rerun --disturbed` measures them again).",
                                                         disturbed.size() == 1 ? "It is" : "They are")));
  if (!keep_disturbed) {
    for (const auto& g : disturbed_groups(trials)) {
      out.push_back(
          fmt::format("`{}`: every one of its {} successful attempt{} ran on a disturbed machine; it is "
                      "not averaged and appears in no table.",
                      g.name(), g.disturbed.size(), g.disturbed.size() == 1 ? "" : "s"));
    }
  }
  return out;
}

std::string run_conditions_notes(Database& db, const ReportData& data) {
  std::string out;
  for (const auto& campaign : data.campaigns) {
    const CampaignMeasurement m = read_campaign_measurement(db, campaign.id);
    const std::string who = data.campaigns.size() == 1 ? "Trials" : fmt::format("Campaign `{}`'s trials", campaign.id);
    if (!m.run_order.empty()) {
      out += fmt::format(
          "{} ran in {} order{}.\n\n", who, m.run_order,
          m.seed ? fmt::format(" (seed {})", *m.seed)
                 : std::string(m.run_order == kOrderInterleaved ? ": every configuration once per round" : ""));
    }
    const auto policies = repeat_policies_from_json(m.measurement);
    if (policies.empty()) continue;
    out += fmt::format(
        "**Adaptive repeats** (95 % CI of the primary metric against its target, disturbed attempts not counted): "
        "{}.\n\n",
        adaptive_outcome(adaptive_status(db, campaign.id, policies), "`"));
  }
  return out;
}

std::optional<std::string> calibration_difference(const std::string& a_name, const std::vector<double>& a,
                                                  const std::string& b_name, const std::vector<double>& b) {
  auto test = welch_t_test(a, b);
  if (!test || test->p >= 0.05 || mean(a) == 0) return std::nullopt;
  const double change = (mean(b) / mean(a) - 1) * 100.0;
  return fmt::format(
      "Calibrations differ beyond their noise: {} {:.1f} ± {:.1f} vs {} {:.1f} ± {:.1f} GFLOP/s per "
      "thread ({:+.0f} %, Welch p {}). The machines ran at different speeds; ratios between them "
      "include that.",
      a_name, mean(a), sample_std(a), b_name, mean(b), sample_std(b), change,
      test->p < 0.001 ? "< 0.001" : fmt::format("= {:.3f}", test->p));
}

std::vector<double> calibrations_of(const std::vector<ReportTrial>& trials, const std::string& campaign_id) {
  std::vector<double> out;
  for (const auto& t : trials) {
    if (t.campaign_id != campaign_id || !t.succeeded()) continue;
    if (t.calibration_gflops) {
      out.push_back(*t.calibration_gflops);
    } else if (auto v = t.metric("environment.blas_gflops_per_thread")) {
      out.push_back(*v);
    }
  }
  return out;
}

}  // namespace mt
