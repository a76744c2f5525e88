#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>

#include "launch/provenance.h"
#include "run/attempt_verdict.h"
#include "runner_error.h"
#include "store/baselines.h"
#include "store/campaign_removal.h"
#include "store/conditions_rows.h"
#include "store_fixture.h"

using namespace mt;

namespace {

// A campaign with one trial and one attempt that fills every table an attempt can: provenance,
// metrics, per-step values, result rows, kept files, launches, a stage and the machine's conditions.
void add_full_campaign(Store& store, const std::string& id) {
  store.add_campaign_if_new({id, "exp", "/x.yaml", "rev", "plan-" + id, "{}", 1, utc_now()});
  Trial trial;
  trial.study = "s";
  trial.workload = "command";
  trial.identity = "trial-" + id;
  trial.group_key = "g";
  const std::int64_t row = store.add_trial_if_new(id, trial, 0);
  const std::int64_t attempt = store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", Provenance{});
  const std::int64_t stage =
      store.begin_stage(attempt, {1, "a", "command", "succeeds", "{}", "cmd", "/run/a", "/run/a/log.txt"});
  AttemptOutcome ok;
  ok.state = AttemptState::Succeeded;
  store.finish_stage(stage, ok, {true, "succeeded", ""});
  ok.metrics = {{"value", 1}};
  ok.steps = {{"step_time_ms", 0, 0, 9.5}};
  ok.rows = {R"({"operation": "all_reduce", "bytes": 1024})"};
  ok.files = {{"profile/profile.json", "{}"}};
  LaunchRecord launch;
  launch.state = AttemptState::Succeeded;
  launch.log_path = "/run/log.txt";
  ok.launches = {launch};
  store.finish_attempt(attempt, ok, std::nullopt);
  MachineConditions conditions;
  conditions.wall_s = 1;
  conditions.cpus = 2;
  record_conditions(store.db(), attempt, conditions, Verdict{});
}

// Rows of `table` belonging to campaign `id`, through the views and joins a reader would use.
std::int64_t rows_of(TempStore& t, const std::string& table, const std::string& id) {
  std::string sql;
  if (table == "campaigns") sql = "SELECT count(*) FROM campaigns WHERE id = ?";
  else if (table == "trials") sql = "SELECT count(*) FROM trials WHERE campaign_id = ?";
  else if (table == "attempts")
    sql = "SELECT count(*) FROM attempts a JOIN trials t ON t.id = a.trial_id WHERE t.campaign_id = ?";
  else
    sql = fmt::format(
        "SELECT count(*) FROM {} x JOIN attempts a ON a.id = x.attempt_id JOIN trials t ON t.id = a.trial_id "
        "WHERE t.campaign_id = ?",
        table);
  auto s = t.store.db().prepare(sql);
  s.bind(1, id);
  REQUIRE(s.step());
  return s.integer(0);
}

}  // namespace

TEST_CASE("deleting a campaign removes every row of it, in every table, and nothing of another") {
  TempStore t("mt_campaign_removal", 1);
  add_full_campaign(t.store, "gone");
  add_full_campaign(t.store, "kept");
  for (const auto& table : campaign_tables()) {
    CAPTURE(table);
    CHECK(rows_of(t, table, "gone") >= 1);  // the fixture fills every table the removal empties
  }
  const CampaignRows counted = count_campaign_rows(t.store.db(), "gone");
  CHECK(counted.trials == 1);
  CHECK(counted.attempts == 1);
  CHECK(counted.rows >= std::int64_t(campaign_tables().size()));

  const CampaignRows deleted = delete_campaign_rows(t.store.db(), "gone");
  CHECK(deleted.rows == counted.rows);
  for (const auto& table : campaign_tables()) {
    CAPTURE(table);
    CHECK(rows_of(t, table, "gone") == 0);
    CHECK(rows_of(t, table, "kept") >= 1);
  }
  CHECK(t.query("SELECT count(*) FROM pragma_foreign_key_check") == "0");
  CHECK(count_campaign_rows(t.store.db(), "kept").rows == counted.rows);  // the other is whole
}

TEST_CASE("every table of the store is either emptied of the campaign or said to hold none of its rows") {
  TempStore t("mt_campaign_tables", 1);
  // A table added to the schema later must be placed in the removal's order, or named here.
  const std::set<std::string> not_per_campaign = {"baselines", "leases"};
  auto s = t.store.db().prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  const auto& tables = campaign_tables();
  while (s.step()) {
    const std::string name = s.text(0);
    CAPTURE(name);
    CHECK((std::find(tables.begin(), tables.end(), name) != tables.end() || not_per_campaign.count(name) == 1));
  }
}

TEST_CASE("a campaign a baseline points at is not deleted, and the baseline is named") {
  TempStore t("mt_campaign_baseline", 1);
  add_full_campaign(t.store, "base");
  set_baseline(t.store.db(), "main", "base");
  CHECK(baselines_of(t.store.db(), "base") == std::vector<std::string>{"main"});
  const std::int64_t before = count_campaign_rows(t.store.db(), "base").rows;
  try {
    delete_campaign_rows(t.store.db(), "base");
    FAIL("deleted a campaign a baseline points at");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitUsage);
    CHECK(std::string(e.what()).find("baseline main") != std::string::npos);
  }
  CHECK(count_campaign_rows(t.store.db(), "base").rows == before);  // nothing deleted
  delete_baseline(t.store.db(), "main");
  CHECK(delete_campaign_rows(t.store.db(), "base").rows == before);
}
