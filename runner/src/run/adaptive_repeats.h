#pragma once
// Adaptive repeats (`repeat: {min, max, target_ci_pct}`): after the plan's `min` rounds, one more
// round at a time for every configuration whose primary metric's 95 % confidence interval is still
// wider than ±target_ci_pct % of its mean, until it is narrow enough or `max` rounds have run.
// Attempts on a disturbed machine do not count toward the target. The rule reads only what the store
// holds, so a finished campaign run again adds nothing.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/measurement_rules.h"
#include "experiment/trial.h"
#include "experiment/trial_list.h"
#include "store/sqlite_db.h"

namespace mt {

class Store;
struct PendingTrials;

enum class RoundDecision {
  Reached,  // the interval is within the target
  AtMax,    // `max` rounds ran without reaching it
  More,     // another round is due
  Blocked,  // a round has not succeeded (failed, interrupted, not run): it runs first, no round is added over a gap
};

struct RepeatStatus {
  RoundDecision decision = RoundDecision::More;
  int rounds = 0;                // trials of the configuration, whatever their outcome
  int counted = 0;               // succeeded on a quiet machine: the values the interval is made of
  std::optional<double> ci_pct;  // half-width of the 95 % interval, % of the mean; n < 2: none
};

// The stopping rule over a configuration's `rounds` and the primary metric of its counted attempts.
RepeatStatus decide_rounds(const RepeatPolicy& policy, int rounds, const std::vector<double>& counted,
                           bool all_succeeded);

// The metric the target is about: tokens/s for training, busbw for collectives, a command's first
// declared metric.
std::string primary_metric(const Trial& trial);

// Studies of the experiment with adaptive repeats, by name, as stored with the campaign.
std::map<std::string, RepeatPolicy> adaptive_studies(const Experiment& experiment);
// What the adaptive studies of a plan may add to its `trials`, in words, one line per study (none when
// no study is adaptive): how many configurations, the rule, and the most trials it may add.
std::vector<std::string> adaptive_plan_lines(const std::map<std::string, RepeatPolicy>& policies,
                                             const TrialList& trials);

std::string repeat_policies_to_json(const std::map<std::string, RepeatPolicy>& policies);
std::map<std::string, RepeatPolicy> repeat_policies_from_json(const std::string& measurement_json);

// Every adaptive configuration of the campaign with its status, in plan order of its first trial:
// key = group_key, plus the study and a label for messages.
struct ConfigurationRounds {
  std::string group_key;
  std::string study;
  std::string label;
  std::string metric;
  std::int64_t first_row = 0;  // its repeat 0, the template of a new round
  RepeatStatus status;
};
std::vector<ConfigurationRounds> adaptive_status(Database& db, const std::string& campaign_id,
                                                 const std::map<std::string, RepeatPolicy>& policies);

// What adaptive repeats came to, each configuration with its rounds and interval: "reached the
// target: A (5 rounds, ±1.6 %); stopped at max: B (8 rounds, ±3.7 %)", and those not finished;
// labels between `quote`s ("`" in markdown). Empty when there are none.
std::string adaptive_outcome(const std::vector<ConfigurationRounds>& configurations, const std::string& quote);

// The same as a line for the terminal ("adaptive repeats (…): reached the target: …\n", as `mtrun
// run` ends and `mtrun status` shows it), from the campaign's configurations; "" when it has none.
std::string adaptive_outcome_line(Database& db, const std::string& campaign_id,
                                  const std::map<std::string, RepeatPolicy>& policies);

// The rounds adaptive repeats added to a campaign on earlier runs: its trials beyond the plan's
// `planned` ones (a plan's trials are its first ordinals; added rounds come after them), in the
// order they were added.
struct AddedRounds {
  std::vector<std::int64_t> to_run;  // trial rows a run of the experiment runs again
  int added = 0;                     // all of them, whatever their state
};
// Those whose latest attempt did not succeed (a round a stopped runner left unfinished, or one that
// failed) are run again, as the plan's are, so that a run of the file again finishes the round and
// goes on adding rounds. With `force`, every one: --force measures the campaign afresh, and a round
// left with its older attempt would mix them into the new means. Only rounds the experiment's
// `policies` still allow: of a study still adaptive, below its `max`.
AddedRounds added_rounds_to_run(Database& db, const std::string& campaign_id, std::size_t planned, bool force,
                                const std::map<std::string, RepeatPolicy>& policies);

// Registers one more round of every configuration that needs it and returns those trials (none when
// every configuration has reached its target or max), saying so on `out`.
PendingTrials next_adaptive_round(Store& store, const std::string& campaign_id,
                                  const std::map<std::string, RepeatPolicy>& policies, std::ostream& out);

}  // namespace mt
