// The change-point test of `mtrun history`: consecutive revisions compared, corrected together; and
// its chart.
#include <doctest/doctest.h>

#include "report/compare/change_point.h"
#include "report/compare/history.h"
#include "report_fixture.h"
#include "runner_error.h"

using namespace mt;

TEST_CASE("change points: the boundary where the mean moved beyond noise and the minimum change") {
  const std::vector<std::vector<double>> series = {
      {100, 101, 99}, {100.5, 99.5, 100}, {130, 131, 129}, {130, 129.5, 130.5}};
  auto b = find_change_points(series, 0.05);
  REQUIRE(b.size() == 3);
  CHECK_FALSE(b[0].change_point);
  CHECK(b[1].change_point);
  CHECK(b[1].after == 2);
  CHECK(*b[1].change == doctest::Approx(0.3));
  CHECK(*b[1].adjusted_p < 0.05);
  CHECK_FALSE(b[2].change_point);
}

TEST_CASE("change points: a significant change smaller than the minimum is not one; nor is one without repeats") {
  const std::vector<std::vector<double>> small = {{100, 100.1, 99.9}, {102, 102.1, 101.9}};
  auto b = find_change_points(small, 0.05);
  REQUIRE(b.size() == 1);
  CHECK(*b[0].p < 0.05);
  CHECK_FALSE(b[0].change_point);
  CHECK(find_change_points(small, 0.01)[0].change_point);
  auto single = find_change_points({{100}, {200}}, 0.05);
  CHECK_FALSE(single[0].p);
  CHECK_FALSE(single[0].change_point);
  CHECK(*single[0].change == doctest::Approx(1.0));
  CHECK(find_change_points({{100, 101}}, 0.05).empty());
  // A revision where the configuration did not run is skipped: its neighbours are compared.
  auto gap = find_change_points({{100, 101, 99}, {}, {130, 131, 129}}, 0.05);
  REQUIRE(gap.size() == 1);
  CHECK(gap[0].before == 0);
  CHECK(gap[0].after == 2);
  CHECK(gap[0].change_point);
}

TEST_CASE("change points: p-values are corrected over the series' boundaries (Holm)") {
  const std::vector<std::vector<double>> series = {{100, 101, 99}, {100, 101, 99}, {110, 111, 109}};
  auto b = find_change_points(series, 0.0);
  REQUIRE(b[1].p);
  CHECK(*b[1].adjusted_p >= *b[1].p);
}

TEST_CASE("history chart: a single revision is drawn as bars, not as a line through one column") {
  mt::testing::ReportFixture f("history_one_revision.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) f.trial(mt::testing::train_trial("s", "ddp", 1, r, 1000 + r, 40, 500));
  auto db = open_results(f.path());
  const RenderedHistory history = render_history(load_report_data(*db, {latest_campaign(*db)}), {});
  CHECK(history.svg.find("<polyline") == std::string::npos);
  CHECK(history.svg.find("<rect x=") != std::string::npos);
}

TEST_CASE("history: a tree with uncommitted changes is a revision of its own, named by its commit and diff") {
  mt::testing::ReportFixture f("history_dirty.sqlite");
  f.campaign("c1", "exp", "2024-05-01T10:00:00Z");
  f.store().add_campaign_if_new({"c2", "exp", "/exp/exp.yaml",
                                 "1111111111111111111111111111111111111111+d191e195502d9195", "plan-c2", "{}", 0,
                                 "2024-05-01T11:00:00Z"});
  for (int r = 0; r < 3; ++r) {
    f.trial(mt::testing::train_trial("s", "ddp", 1, r, 1000 + r, 40, 500), "c1");
    f.trial(mt::testing::train_trial("s", "ddp", 1, r, 1500 + r, 40, 500), "c2");
  }
  auto db = open_results(f.path());
  const std::string md = render_history(load_report_data(*db, experiment_campaigns(*db, "exp")), {}).markdown;
  CHECK(md.find("2 campaigns at 2 revisions") != std::string::npos);
  CHECK(md.find("a revision with uncommitted changes is its commit + the hash of its diff") != std::string::npos);
  CHECK(md.find("changed at revision `111111111111+d191e195` (after `111111111111`)") != std::string::npos);
  CHECK(md.find("Attempts on a disturbed machine are left out") != std::string::npos);
  HistoryOptions keep;
  keep.keep_disturbed = true;
  CHECK(render_history(load_report_data(*db, experiment_campaigns(*db, "exp")), keep)
            .markdown.find("Attempts on a disturbed machine are kept in") != std::string::npos);
}

TEST_CASE("history: a campaign whose every configuration drifted as it ran is named, the others not") {
  mt::testing::ReportFixture f("history_drift.sqlite");
  f.campaign("c1", "exp", "2024-05-01T10:00:00Z");
  f.campaign("c2", "exp", "2024-05-02T10:00:00Z");
  mt::testing::rounds_with_growth(f, "c1", 0);
  mt::testing::rounds_with_growth(f, "c2", 0.05);  // 5 % slower a round, in both configurations
  f.pin_timestamps();                              // the attempts start in the order they were added
  auto db = open_results(f.path());
  const std::string md = render_history(load_report_data(*db, experiment_campaigns(*db, "exp")), {}).markdown;
  CHECK(md.find("- ⚠campaign drift: in campaign `c2`, step times moved +16.3 % from the first attempt to the last") !=
        std::string::npos);
  CHECK(md.find("in campaign `c1`") == std::string::npos);
}

TEST_CASE("history: configurations run only on a disturbed machine are named, not silently missing") {
  mt::testing::ReportFixture f("history_disturbed.sqlite");
  f.campaign("c1", "exp", "2024-05-01T10:00:00Z");
  for (int r = 0; r < 3; ++r) f.trial(mt::testing::train_trial("s", "ddp", 1, r, 1000 + r, 40, 500), "c1");
  for (int r = 0; r < 2; ++r)
    mt::testing::mark_disturbed(f, f.trial(mt::testing::train_trial("s", "ddp", 2, r, 1900, 40, 500), "c1"));
  auto db = open_results(f.path());
  const auto data = load_report_data(*db, experiment_campaigns(*db, "exp"));
  const std::string md = render_history(data, {}).markdown;
  CHECK(md.find("Attempts on a disturbed machine are left out (2 of 5 successful attempts here), as in reports") !=
        std::string::npos);
  CHECK(md.find("- `s ddp ×2`: every one of its 2 successful attempts ran on a disturbed machine; it has no series") !=
        std::string::npos);
  HistoryOptions keep;
  keep.keep_disturbed = true;
  const std::string kept = render_history(data, keep).markdown;
  CHECK(kept.find("has no series") == std::string::npos);
  CHECK(kept.find("are kept in (2 of 5 successful attempts here)") != std::string::npos);
}

TEST_CASE("history: when every attempt ran on a disturbed machine it says so, also for a metric asked by name") {
  mt::testing::ReportFixture f("history_all_disturbed.sqlite");
  f.campaign("c1", "exp", "2024-05-01T10:00:00Z");
  for (int r = 0; r < 2; ++r)
    mt::testing::mark_disturbed(f, f.trial(mt::testing::train_trial("s", "ddp", 1, r, 1000, 40, 500), "c1"));
  auto db = open_results(f.path());
  const auto data = load_report_data(*db, experiment_campaigns(*db, "exp"));
  CHECK(render_history(data, {}).markdown.find("No configuration has successful trials on a quiet machine.") !=
        std::string::npos);
  HistoryOptions by_name;
  by_name.metric = "tokens_per_sec";
  CHECK(render_history(data, by_name).markdown.find("every one of its 2 successful attempts") != std::string::npos);
  by_name.metric = "tokens_per_second";
  CHECK_THROWS_WITH_AS(render_history(data, by_name), doctest::Contains("has metric 'tokens_per_second' (it has: "),
                       RunnerError);
}
