// The drift over a campaign: every configuration's step times against its own mean, in the order
// their attempts started, one line fitted through them within configurations.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "report/model/campaign_drift.h"
#include "report/model/groups.h"

using namespace mt;

namespace {

// `configurations` configurations × `repeats` repeats, run interleaved (one round after another):
// the step time of round r is base × (1 + trend × r ÷ (rounds − 1)), with a small wobble that
// differs between configurations.
std::vector<ReportTrial> interleaved(int configurations, int repeats, double trend, const std::string& campaign = "c") {
  std::vector<ReportTrial> trials;
  int started = 0;
  for (int r = 0; r < repeats; ++r) {
    for (int c = 0; c < configurations; ++c) {
      ReportTrial t;
      t.campaign_id = campaign;
      t.study = fmt::format("s{}", c);
      t.workload = "train";
      t.strategy = "ddp";
      t.repeat_index = r;
      t.identity = fmt::format("{}{}-{}", campaign, c, r);
      t.group_key = fmt::format("{}-{}", campaign, c);
      t.succeeded_attempt = 1;
      const double wobble = ((r + c) % 3 - 1) * 0.004;
      t.metrics["step_time_ms"] = (40.0 + 10 * c) * (1 + trend * r / (repeats - 1) + wobble);
      t.succeeded_started_at = fmt::format("2024-05-01T10:{:02}:00.000Z", started++);
      trials.push_back(t);
    }
  }
  return trials;
}

}  // namespace

TEST_CASE("campaign drift: a machine slowing over the campaign is fitted and marked; a level one is not") {
  const auto slowing = interleaved(3, 5, 0.10);
  const auto groups = group_trials(slowing);
  const auto drifts = campaign_drifts(group_pointers(groups));
  REQUIRE(drifts.size() == 1);
  CHECK(drifts[0].campaign_id == "c");
  CHECK(drifts[0].attempts == 15);
  CHECK(drifts[0].configurations == 3);
  // Round r at place (3r + c) ÷ 14: a 10 % rise over rounds 0 to 4 is about 10 % over places 0 to 1.
  CHECK(drifts[0].change == doctest::Approx(0.10).epsilon(0.15));
  CHECK(*drifts[0].p < 0.001);
  CHECK(drifts[0].marked());
  CHECK(campaign_drift_text(drifts[0], false).rfind("step times moved +", 0) == 0);
  CHECK(campaign_drift_text(drifts[0], true).rfind("in campaign `c`, step times moved +", 0) == 0);

  const auto level = interleaved(3, 5, 0.0);
  const auto level_groups = group_trials(level);
  const auto none = campaign_drifts(group_pointers(level_groups));
  REQUIRE(none.size() == 1);
  CHECK(std::abs(none[0].change) < 0.01);
  CHECK_FALSE(none[0].marked());
  // A small drift beyond noise is not worth a mark.
  const auto small = interleaved(3, 5, 0.02);
  const auto small_groups = group_trials(small);
  CHECK_FALSE(campaign_drifts(group_pointers(small_groups)).at(0).marked());
}

TEST_CASE("campaign drift: re-runs among the attempts are counted in its words") {
  auto trials = interleaved(3, 5, 0.10);
  const auto first = campaign_drifts(group_pointers(group_trials(trials)));
  REQUIRE(first.size() == 1);
  CHECK(first[0].reruns == 0);
  CHECK(campaign_drift_text(first[0], false).find("re-run") == std::string::npos);
  // The last round's two trials failed and were run again: their second attempts are reported.
  trials[trials.size() - 1].succeeded_attempt = 2;
  trials[trials.size() - 2].succeeded_attempt = 3;
  const auto groups = group_trials(trials);
  const auto rerun = campaign_drifts(group_pointers(groups));
  REQUIRE(rerun.size() == 1);
  CHECK(rerun[0].reruns == 2);
  CHECK(rerun[0].change == doctest::Approx(first[0].change));  // counted, not left out of the fit
  CHECK(campaign_drift_text(rerun[0], false).find("in the order they started, 2 of them re-runs; p ") !=
        std::string::npos);
  trials[trials.size() - 2].succeeded_attempt = 1;
  const auto one_groups = group_trials(trials);
  CHECK(campaign_drift_text(campaign_drifts(group_pointers(one_groups))[0], false).find(", one of them a re-run; p ") !=
        std::string::npos);
}

TEST_CASE("campaign drift: each campaign of a pooled report is fitted on its own; too little to fit is none") {
  auto trials = interleaved(3, 4, -0.08, "a");
  for (auto& t : interleaved(3, 4, 0.0, "b")) trials.push_back(t);
  // The same configurations in both campaigns: one group each, pooled over the campaigns.
  for (auto& t : trials) t.group_key = t.study;
  const auto groups = group_trials(trials);
  REQUIRE(groups.size() == 3);
  const auto drifts = campaign_drifts(group_pointers(groups));
  REQUIRE(drifts.size() == 2);
  CHECK(drifts[0].campaign_id == "a");
  CHECK(drifts[0].change < -0.05);
  CHECK(drifts[1].campaign_id == "b");
  CHECK(std::abs(drifts[1].change) < 0.01);
  // Two repeats a configuration, or too few attempts for five degrees of freedom: nothing to fit.
  const auto pairs = interleaved(4, 2, 0.10);
  const auto pair_groups = group_trials(pairs);
  CHECK(campaign_drifts(group_pointers(pair_groups)).empty());
  const auto six = interleaved(1, 6, 0.10);
  const auto six_group = group_trials(six);
  CHECK(campaign_drifts(group_pointers(six_group)).empty());
  // One configuration repeated seven times is enough.
  const auto seven = interleaved(1, 7, 0.10);
  const auto seven_group = group_trials(seven);
  REQUIRE(campaign_drifts(group_pointers(seven_group)).size() == 1);
  CHECK(campaign_drifts(group_pointers(seven_group))[0].change == doctest::Approx(0.10).epsilon(0.15));
}
