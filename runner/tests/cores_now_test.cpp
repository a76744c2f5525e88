#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "launch/core_round_trip.h"
#include "launch/machine_sampler.h"
#include "run/attempt_verdict.h"
#include "run/cores_now.h"
#include "store/conditions_rows.h"
#include "store_fixture.h"

using namespace mt;

namespace {

// Campaign `id` (added if new, with `measurement` recorded), whose attempts read the cores of `cpus`
// CPUs once each as `readings` say.
void campaign_reading_cores(TempStore& t, const std::string& id, int cpus, const std::vector<double>& readings,
                            const std::string& measurement = "") {
  t.store.add_campaign_if_new({id, "exp", "/x.yaml", "rev", "plan-" + id, "{}", 1, utc_now()},
                              {"interleaved", std::nullopt, measurement});
  static int ordinal = 0;
  for (double ns : readings) {
    Trial trial;
    trial.study = "s";
    trial.workload = "command";
    trial.identity = trial.group_key = "trial" + std::to_string(++ordinal);
    const std::int64_t row = t.store.add_trial_if_new(id, trial, ordinal);
    const std::int64_t attempt = t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", std::nullopt);
    MachineConditions c;
    c.wall_s = 1;
    c.cpus = cpus;
    c.core_round_trip_ns_before = ns;
    record_conditions(t.store.db(), attempt, c, Verdict{});
  }
}

}  // namespace

TEST_CASE("before a campaign the cores are judged by the latest campaign that read them on as many CPUs") {
  TempStore t("mt_cores_latest", 1);
  campaign_reading_cores(t, "older", 2, {100, 110, 120});
  campaign_reading_cores(t, "latest", 2, {200, 210, 220});
  campaign_reading_cores(t, "too-few", 2, {300, 310});  // later, but no usual yet
  campaign_reading_cores(t, "wide", 64, {400, 410, 420});
  CHECK(latest_campaign_reading_cores(t.store.db(), 2) == std::optional<std::string>("latest"));
  CHECK(latest_campaign_reading_cores(t.store.db(), 64) == std::optional<std::string>("wide"));
  CHECK_FALSE(latest_campaign_reading_cores(t.store.db(), 8));
}

TEST_CASE("a reading of the cores is far apart above its campaign's usual by that campaign's threshold") {
  CoresNow cores;
  cores.cpus = 2;
  CHECK(cores.describe() == "the round trip between CPUs could not be timed: no CPU was free long enough");
  cores.round_trip_ns = 330;
  CHECK_FALSE(cores.far_apart());  // no usual: nothing to judge it by
  CHECK(cores.describe() ==
        "a cache line's round trip between CPUs took 330 ns (no campaign in the database has read the cores of 2 "
        "CPUs on three attempts: nothing to judge it by)");
  cores.usual_ns = 110;
  cores.campaign_id = "5522a0aa3b25";
  cores.max_rise_pct = 200;
  CHECK_FALSE(cores.far_apart());  // exactly 200 % above
  CHECK(cores.describe() ==
        "a cache line's round trip between CPUs took 330 ns, against the usual 110 ns of campaign 5522a0aa3b25 (2 "
        "CPUs)");
  cores.round_trip_ns = 512;
  CHECK(cores.far_apart());
  CHECK(cores.far_apart_reason() ==
        "cores far apart: round trip 512 ns against the usual 110 ns of campaign 5522a0aa3b25 (at most 200 % above "
        "it)");
  CoresNow one;
  one.cpus = 1;
  CHECK(one.describe() == "one CPU: no round trip between cores to time");
}

TEST_CASE("this machine's cores now, against the usual and threshold of the database's latest campaign") {
  TempStore t("mt_cores_now", 1);
  const MachineSnapshot snapshot = read_snapshot();
  REQUIRE(snapshot.stat);
  // A usual far below any real round trip, and the campaign's own threshold.
  campaign_reading_cores(t, "tight", snapshot.stat->cpus, {0.01, 0.01, 0.01},
                         R"({"conditions": {"max_core_round_trip_rise_pct": 50}})");
  const CoresNow now = read_cores_now(t.dir / "mtrun.sqlite");
  CHECK(now.cpus == snapshot.stat->cpus);
  if (allowed_cpus().size() < 2) {
    CHECK_FALSE(now.round_trip_ns);
    return;
  }
  if (!now.round_trip_ns) {
    MESSAGE("the cores could not be timed now (every core busy): the judgement is not checked");
    return;
  }
  CHECK(now.campaign_id == "tight");
  CHECK(now.usual_ns == doctest::Approx(0.01));
  CHECK(now.max_rise_pct == 50);
  CHECK(now.far_apart());
  // No database: the reading stands alone.
  const CoresNow alone = read_cores_now(t.dir / "none.sqlite");
  CHECK(alone.campaign_id.empty());
  CHECK_FALSE(alone.far_apart());
}
