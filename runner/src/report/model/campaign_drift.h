#pragma once
// Whether something every configuration shared (the machine, most often) got faster or slower over
// a campaign: each configuration's step times set against its own mean, in the order their attempts
// started, and one line fitted through all of them. Interleaved or shuffled order spreads such a
// drift over every configuration, so their ratios hold; their absolute figures depend on when they
// ran, and their spreads are wider for it. In plan order it also tilts the comparisons
// (docs/measurement.md).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// A configuration takes part with this many successful attempts in the campaign or more.
constexpr std::size_t kMinCampaignDriftRepeats = 3;
// Smallest fitted change from the first attempt to the last worth a warning.
constexpr double kCampaignDriftThreshold = 0.03;

struct CampaignDrift {
  std::string campaign_id;
  std::size_t attempts = 0;        // the attempts the line went through
  std::size_t configurations = 0;  // the configurations they belong to
  // Of those attempts, the re-runs (a trial's second attempt or later: `mtrun rerun`, or `run` again
  // after a stop), which start after the rounds they were missing from, at the end of the order,
  // whatever the machine does by then.
  std::size_t reruns = 0;
  // The fitted step time at the last attempt ÷ at the first, − 1: the slope of each attempt's step
  // time ÷ its configuration's mean over its place in the campaign's start order (0 to 1), fitted
  // within configurations.
  double change = 0;
  std::optional<double> p;  // t-test of the slope (attempts − configurations − 1 degrees of freedom)
  bool marked() const {
    return p && *p < 0.05 && (change >= kCampaignDriftThreshold || change <= -kCampaignDriftThreshold);
  }
};

// One per campaign of the groups' trials that has enough to fit: configurations with
// kMinCampaignDriftRepeats or more successful attempts with a step time, and five degrees of
// freedom left (one configuration of 7 attempts, three of 3 each).
// Campaigns in the order their first trial appears.
std::vector<CampaignDrift> campaign_drifts(const std::vector<const Group*>& groups);

// "step times moved +22.3 % from the first attempt to the last (217 attempts of 24 configurations,
// each against its own mean, in the order they started; p < 0.001)", of `drift`'s campaign, named
// when `name_campaign`, with how many of the attempts are re-runs ("…, 3 of them re-runs; p …").
std::string campaign_drift_text(const CampaignDrift& drift, bool name_campaign);

}  // namespace mt
