#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "run/attempt_verdict.h"
#include "store/conditions_rows.h"
#include "store/rerun_selection.h"
#include "store_fixture.h"

using namespace mt;

namespace {

// A campaign whose trials' attempts ended as each `history` says, oldest first: "ok" (succeeded,
// quiet), "ok-disturbed", "ok-unjudged" (succeeded, no conditions recorded) or "failed".
struct CampaignOfHistories {
  TempStore t;
  std::vector<std::int64_t> rows;

  explicit CampaignOfHistories(const std::vector<std::vector<std::string>>& histories)
      : t("mt_rerun_selection", int(histories.size())) {
    for (std::size_t i = 0; i < histories.size(); ++i) {
      Trial trial;
      trial.study = "s";
      trial.workload = "command";
      trial.identity = "trial-" + std::to_string(i);
      trial.group_key = "g";
      const std::int64_t row = t.store.add_trial_if_new("c", trial, int(i));
      rows.push_back(row);
      int number = 0;
      for (const std::string& end : histories[i]) {
        const std::int64_t attempt = t.store.begin_attempt(row, ++number, "cmd", "/run", "/run/log.txt", std::nullopt);
        AttemptOutcome outcome;
        outcome.state = end == "failed" ? AttemptState::Failed : AttemptState::Succeeded;
        t.store.finish_attempt(attempt, outcome, std::nullopt);
        if (end == "ok-unjudged" || end == "failed") continue;
        MachineConditions conditions;
        conditions.wall_s = 1;
        conditions.cpus = 2;
        Verdict verdict;
        verdict.disturbed = end == "ok-disturbed";
        if (verdict.disturbed) verdict.reasons = {"other processes used 90 % of a core"};
        record_conditions(t.store.db(), attempt, conditions, verdict);
      }
    }
  }

  TrialsToRerun select(bool failed, bool disturbed) { return trials_to_rerun(t.store.db(), "c", {failed, disturbed}); }
};

}  // namespace

TEST_CASE("rerun selects failed trials, disturbed ones, or both, in the campaign's order") {
  CampaignOfHistories c({
      {"ok"},                           // 0: quiet success
      {"ok-disturbed"},                 // 1: disturbed
      {"failed"},                       // 2: failed
      {},                               // 3: never started
      {"ok-disturbed", "failed"},       // 4: failed after a disturbed success (the report's number)
      {"ok-disturbed", "ok"},           // 5: measured again, quietly
      {"ok", "ok-disturbed"},           // 6: the latest success is the disturbed one
      {"ok-disturbed", "ok-unjudged"},  // 7: the latest success has no verdict: not passed over
  });
  const auto& r = c.rows;

  const TrialsToRerun failed = c.select(true, false);
  CHECK(failed.rows == std::vector<std::int64_t>{r[2], r[3], r[4]});
  CHECK(failed.failed == 3);
  CHECK(failed.never_started == 1);
  CHECK(failed.disturbed == 0);

  // The attempt reports use is the latest that succeeded: trial 4's, though it failed since.
  const TrialsToRerun disturbed = c.select(false, true);
  CHECK(disturbed.rows == std::vector<std::int64_t>{r[1], r[4], r[6]});
  CHECK(disturbed.disturbed == 3);
  CHECK(disturbed.failed == 0);

  // Both: trial 4 once, as failed.
  const TrialsToRerun both = c.select(true, true);
  CHECK(both.rows == std::vector<std::int64_t>{r[1], r[2], r[3], r[4], r[6]});
  CHECK(both.failed == 3);
  CHECK(both.disturbed == 2);

  CHECK(c.select(false, false).rows.empty());
}
