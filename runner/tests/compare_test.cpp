// mtrun compare: configurations matched by the parameters that did not change, the regression gate,
// and the refusal to compare different machines or stacks.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "report/compare/compare.h"
#include "report/compare/config_matching.h"
#include "report/compare/regression_gate.h"
#include "report/render/cells.h"
#include "runner_error.h"
#include "store/campaign_lookup.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

Configuration config(const std::string& study, std::map<std::string, std::string> params) {
  return {study, std::move(params)};
}

ComparisonOutcome compare_of(const ReportFixture& f, const std::string& a, const std::string& b,
                             const ComparisonOptions& options) {
  auto db = open_results(f.path());
  return compare_campaigns(load_report_data(*db, {campaign_by_id(*db, a)}),
                           load_report_data(*db, {campaign_by_id(*db, b)}), options);
}

// Campaigns aaaa and bbbb of `s ddp ×2`, `repeats` trials each, B 10 % faster; each side's trials
// carry its extra parameters. Returns B's attempts.
std::vector<std::int64_t> a_and_b(ReportFixture& f, int repeats, const std::map<std::string, std::string>& a_params,
                                  const std::map<std::string, std::string>& b_params) {
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  std::vector<std::int64_t> b_attempts;
  for (int r = 0; r < repeats; ++r) {
    FixtureTrial a = train_trial("s", "ddp", 2, r, 1000 + r, 40, 500);
    a.params.insert(a_params.begin(), a_params.end());
    FixtureTrial b = train_trial("s", "ddp", 2, r, 1100 + r, 40, 500);
    b.params.insert(b_params.begin(), b_params.end());
    f.trial(a, "aaaa");
    b_attempts.push_back(f.trial(b, "bbbb"));
  }
  return b_attempts;
}

}  // namespace

TEST_CASE("matching: a parameter with one value in each campaign is what changed; the others match") {
  std::vector<Configuration> a = {config("s", {{"ranks", "1"}, {"bucket_cap_mb", "25"}}),
                                  config("s", {{"ranks", "2"}, {"bucket_cap_mb", "25"}})};
  std::vector<Configuration> b = {config("s", {{"ranks", "1"}, {"bucket_cap_mb", "50"}}),
                                  config("s", {{"ranks", "2"}, {"bucket_cap_mb", "50"}}),
                                  config("s", {{"ranks", "4"}, {"bucket_cap_mb", "50"}})};
  ConfigurationMatch m = match_configurations(a, b, {});
  REQUIRE(m.changed.size() == 1);
  CHECK(m.changed[0].name == "bucket_cap_mb");
  CHECK(m.changed[0].a == "25");
  CHECK(m.changed[0].b == "50");
  CHECK(m.pairs == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 1}});
  CHECK(m.only_a.empty());
  CHECK(m.only_b == std::vector<std::size_t>{2});
  // ranks ran 1, 2 in A and 1, 2, 4 in B: still matched on, and it tells the extra configuration apart.
  CHECK(m.distinguishing["s"] == std::set<std::string>{"ranks"});
  CHECK(parameter_text(b[2], m.distinguishing["s"]) == "ranks=4");
}

TEST_CASE("matching: a parameter set in one campaign only is a change; --match keeps a changed one in the key") {
  std::vector<Configuration> a = {config("s", {{"ranks", "1"}})};
  std::vector<Configuration> b = {config("s", {{"ranks", "1"}, {"lr", "0.1"}})};
  ConfigurationMatch m = match_configurations(a, b, {});
  REQUIRE(m.changed.size() == 1);
  CHECK(m.changed[0].a == "(not set)");
  CHECK(m.pairs.size() == 1);
  ConfigurationMatch kept = match_configurations(a, b, {{"lr"}, {}});
  CHECK(kept.pairs.empty());
  CHECK(kept.only_a.size() == 1);
  CHECK(kept.distinguishing["s"] == std::set<std::string>{"lr"});
}

TEST_CASE("matching: --ignore leaves out a parameter of several values, unless that confuses configurations") {
  std::vector<Configuration> a = {config("s", {{"ranks", "1"}, {"seed", "1"}}),
                                  config("s", {{"ranks", "2"}, {"seed", "2"}})};
  std::vector<Configuration> b = {config("s", {{"ranks", "1"}, {"seed", "7"}}),
                                  config("s", {{"ranks", "2"}, {"seed", "8"}})};
  CHECK(match_configurations(a, b, {}).pairs.empty());  // seed ran two values a side: matched on
  ConfigurationMatch m = match_configurations(a, b, {{}, {"seed"}});
  CHECK(m.pairs.size() == 2);
  REQUIRE(m.changed.size() == 1);
  CHECK(m.changed[0].a == "1/2");
  CHECK(m.changed[0].b == "7/8");
  CHECK_THROWS_WITH_AS(match_configurations(a, b, {{}, {"ranks", "seed"}}),
                       "campaign A: configurations of study 's' cannot be told apart once ranks, seed are left out of "
                       "the match (ranks=1 seed=1 and ranks=2 seed=2); name the parameters to match on with --match",
                       RunnerError);
  CHECK_THROWS_WITH_AS(
      check_named_parameters(a, b, {{"sede"}, {}}),
      "--match sede: no configuration of either campaign has a parameter 'sede' (they have: ranks, seed)", RunnerError);
}

TEST_CASE("matching: studies are matched by name; a study in one campaign only is unmatched") {
  std::vector<Configuration> a = {config("x", {{"ranks", "1"}}), config("y", {{"ranks", "1"}})};
  std::vector<Configuration> b = {config("x", {{"ranks", "1"}})};
  ConfigurationMatch m = match_configurations(a, b, {});
  CHECK(m.pairs.size() == 1);
  CHECK(m.only_a == std::vector<std::size_t>{1});
}

TEST_CASE("gate: worse by more than the threshold and beyond noise fails; either alone passes") {
  ReportFixture f("gate.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  f.campaign("cccc", "exp", "2024-05-03T09:00:00Z");
  f.campaign("dddd", "exp", "2024-05-04T09:00:00Z");
  const double a[] = {1000, 1010, 990};
  const double slower[] = {700, 707, 693};  // 30 % slower, beyond noise
  const double noisy[] = {500, 1500, 900};  // 3 % slower on average, within noise
  const double slight[] = {950, 960, 940};  // 5 % slower, beyond noise
  for (int r = 0; r < 3; ++r) {
    f.trial(train_trial("s", "ddp", 1, r, a[r], 40, 500), "aaaa");
    f.trial(train_trial("s", "ddp", 1, r, slower[r], 40, 500), "bbbb");
    f.trial(train_trial("s", "ddp", 1, r, noisy[r], 40, 500), "cccc");
    f.trial(train_trial("s", "ddp", 1, r, slight[r], 40, 500), "dddd");
  }
  ComparisonOptions gate;
  gate.fail_on_regression_pct = 10;
  ComparisonOutcome failed = compare_of(f, "aaaa", "bbbb", gate);
  REQUIRE(failed.gate);
  CHECK_FALSE(failed.gate->passed());
  REQUIRE(failed.gate->failed.size() == 1);
  CHECK(failed.gate->failed[0].configuration == "s ddp ×1");
  CHECK(failed.gate->failed[0].worse_by == doctest::Approx(0.3));
  CHECK(contains(failed.markdown, "- s ddp ×1 — tokens_per_sec: 30.0 % worse (B/A 0.700, p (Holm) < 0.001)"));
  CHECK(gate_summary(*failed.gate) ==
        "regression gate (10 %): FAILED (1 of 1 judged): s ddp ×1 tokens_per_sec 30.0 % worse");
  CHECK(compare_of(f, "aaaa", "cccc", gate).gate->passed());
  CHECK(compare_of(f, "aaaa", "dddd", gate).gate->passed());
  gate.fail_on_regression_pct = 3;
  CHECK_FALSE(compare_of(f, "aaaa", "dddd", gate).gate->passed());
  // B faster than A is never a regression.
  CHECK(compare_of(f, "bbbb", "aaaa", gate).gate->passed());
}

TEST_CASE("gate: lower-is-better metrics regress upwards; nothing to judge is an error, not a pass") {
  CHECK(*worsening(1.3, Better::Lower) == doctest::Approx(0.3));
  CHECK(*worsening(0.7, Better::Higher) == doctest::Approx(0.3));
  CHECK(*worsening(1.3, Better::Higher) == doctest::Approx(-0.3));
  CHECK_FALSE(worsening(1.3, Better::Unknown));
  ReportFixture f("gate_nothing.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500), "aaaa");
  f.trial(train_trial("s", "ddp", 1, 0, 500, 40, 500), "bbbb");
  ComparisonOptions gate;
  gate.fail_on_regression_pct = 10;
  CHECK_THROWS_WITH_AS(compare_of(f, "aaaa", "bbbb", gate),
                       "--fail-on-regression: nothing could be judged (s ddp ×1 tokens_per_sec: fewer than two "
                       "successful repeats on a side)",
                       RunnerError);
}

TEST_CASE("gate: a configuration whose values are not finite is named as such and fails the gate, never passes") {
  ReportFixture f("gate_not_finite.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  f.campaign("cccc", "exp", "2024-05-03T09:00:00Z");
  const double a[] = {1000, 1010, 990, 1005, 995};
  for (int r = 0; r < 5; ++r) {
    f.trial(train_trial("s", "ddp", 1, r, a[r], 40, 500), "aaaa");
    // A `command` metric's regex can capture 1e300, and a database edited by hand hold inf: the
    // variance overflows.
    f.trial(train_trial("s", "ddp", 1, r, r == 0 ? 1e300 : a[r], 40, 500), "bbbb");
    const std::int64_t attempt = f.trial(train_trial("s", "ddp", 1, r, a[r], 40, 500), "cccc");
    if (r == 0) {
      f.store().db().exec(
          fmt::format("UPDATE metrics SET value = 9e999 WHERE attempt_id = {} AND name = 'tokens_per_sec'", attempt));
    }
  }
  ComparisonOptions gate;
  gate.fail_on_regression_pct = 5;
  for (const char* b : {"bbbb", "cccc"}) {
    CAPTURE(b);
    ComparisonOutcome outcome = compare_of(f, "aaaa", b, gate);
    REQUIRE(outcome.gate);
    CHECK_FALSE(outcome.gate->passed());
    CHECK(outcome.gate->not_finite == std::vector<std::string>{"s ddp ×1 tokens_per_sec"});
    CHECK(outcome.gate->not_judged.empty());
    CHECK(gate_summary(*outcome.gate) ==
          "regression gate (5 %): FAILED (0 of 0 judged, 1 not judged: values not finite): s ddp ×1 tokens_per_sec "
          "not judged (values not finite)");
    CHECK(contains(outcome.markdown,
                   "**Failed**: 1 comparison could not be judged, and the gate does not pass what "
                   "it cannot judge: values beyond a double's range"));
    CHECK_FALSE(contains(outcome.markdown, "Passed"));
    CHECK_FALSE(contains(outcome.markdown, "too few repeats"));
    CHECK_FALSE(contains(outcome.markdown, "fewer than two"));
    CHECK_FALSE(contains(outcome.markdown, "-nan"));
    CHECK(contains(outcome.markdown, "| not finite |"));
  }
  // 1e300 among four values near 1000: the mean in the cell has an exponent, not 300 digits.
  CHECK(contains(compare_of(f, "aaaa", "bbbb", gate).markdown, "| 2e+299 ± inf ⚑1 (5) |"));
  CHECK(contains(compare_of(f, "aaaa", "cccc", gate).markdown, "| inf ± nan ⚑1 (5) |"));
}

TEST_CASE("cells: a number past a double's fixed range has an exponent; one not finite is inf or nan") {
  CHECK(fixed(1e300, 2) == "1e+300");
  CHECK(fixed(-1.23456e20, 1) == "-1.235e+20");
  CHECK(fixed(999999999999999.0, 0) == "999999999999999");
  CHECK(fixed(-std::nan(""), 2) == "nan");
  CHECK(fixed(-HUGE_VAL, 2) == "-inf");
  CHECK(auto_number(3e20) == "3e+20");
}

TEST_CASE("compare: a changed parameter is named with both values, and its configurations are compared") {
  ReportFixture f("changed.sqlite");
  a_and_b(f, 3, {{"bucket_cap_mb", "25"}}, {{"bucket_cap_mb", "50"}});
  std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md,
                 "- **A**: campaign `aaaa` of `exp`, created 2024-05-01T09:00:00Z at source revision "
                 "`1111111111111111111111111111111111111111`, built from "));
  CHECK(contains(md, "- `bucket_cap_mb` (study `s`): A 25, B 50\n"));
  CHECK(contains(md, "| s ddp ×2 | tokens_per_sec | 1101 ± 1 (3) | 1001 ± 1 (3) | 1.100 |"));
  CHECK_FALSE(contains(md, "only in A"));
}

TEST_CASE("compare: a campaign that ran only on a disturbed machine is said to, not to share no configuration") {
  ReportFixture f("disturbed_compare.sqlite");
  for (std::int64_t attempt : a_and_b(f, 2, {}, {{"steps", "7"}})) mark_disturbed(f, attempt);
  const std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md,
                 "Nothing is compared: campaign B has no configuration with successful attempts on a quiet "
                 "machine (see above)."));
  CHECK_FALSE(contains(md, "no configuration in common"));
  // A parameter that only the disturbed side's configurations have is a parameter, not a typo.
  ComparisonOptions ignore_steps;
  ignore_steps.allow_different_stack = true;
  ignore_steps.match.ignore = {"steps"};
  CHECK_NOTHROW(compare_of(f, "aaaa", "bbbb", ignore_steps));
  ignore_steps.match.ignore = {"stpes"};
  CHECK_THROWS_WITH_AS(compare_of(f, "aaaa", "bbbb", ignore_steps), doctest::Contains("has a parameter 'stpes'"),
                       RunnerError);
}

TEST_CASE("compare: a matched configuration whose step time still moved over its window is named with its side") {
  ReportFixture f("drift_compare.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  for (int r = 0; r < 3; ++r) {
    // B's 20 measured steps (after 2 of warmup) ran 50 ms for the first five, then 40: still warming.
    FixtureTrial a = train_trial("s", "ddp", 1, r, 1000 + r, 40, 500);
    FixtureTrial b = train_trial("s", "ddp", 1, r, 1000 + r, 40, 500);
    b.result["steps"] = 20;
    nlohmann::json steps = nlohmann::json::array();
    for (int i = 0; i < 22; ++i) steps.push_back(i < 7 ? 50.0 + r : 40.0);
    b.result["per_step"]["step_time_ms"] = nlohmann::json::array({steps});
    f.trial(a, "aaaa");
    f.trial(b, "bbbb");
  }
  std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md,
                 "- B: ⚠warming: s ddp ×1 still got faster over its measured steps (the last half 21.5 % faster "
                 "than the first quarter on average, 3 of 3 repeats that way, p = 0.002): its mean holds some "
                 "warm-up\n"));
  CHECK_FALSE(contains(md, "- A: ⚠"));
}

TEST_CASE("compare: a campaign whose every configuration drifted as it ran is named with its side") {
  ReportFixture f("campaign_drift_compare.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  rounds_with_growth(f, "aaaa", 0);
  rounds_with_growth(f, "bbbb", 0.05);  // 5 % slower a round, in both of its configurations
  f.pin_timestamps();                   // the attempts start in the order they were added
  std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md,
                 "- B: ⚠campaign drift: step times moved +16.3 % from the first attempt to the last (8 attempts "
                 "of 2 configurations, each against its own mean, in the order they started; p < 0.001): its "
                 "figures depend on when they ran, and so do the ratios below\n"));
  CHECK_FALSE(contains(md, "- A: ⚠campaign drift"));
}

TEST_CASE("compare: different machines or stacks are refused unless allowed, and then labelled") {
  ReportFixture f("stacks.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  FixtureProvenance old_stack, new_stack;
  new_stack.software_stack = R"({"libtorch":"2.15.0","mpi":"Open MPI 4.1.4","compiler":"GCC 13.1.0"})";
  for (int r = 0; r < 2; ++r) {
    f.provenance(f.trial(train_trial("s", "ddp", 1, r, 1000 + r, 40, 500), "aaaa"), old_stack);
    f.provenance(f.trial(train_trial("s", "ddp", 1, r, 1000 + r, 40, 500), "bbbb"), new_stack);
  }
  try {
    compare_of(f, "aaaa", "bbbb", {});
    FAIL("different LibTorch versions were compared without being asked to");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitIncomparable);
    CHECK(contains(e.what(), "different machines or software stacks (libtorch: A `1.13.1`, B `2.15.0`)"));
    CHECK(contains(e.what(), "--allow-different-stack"));
  }
  ComparisonOptions allowed;
  allowed.allow_different_stack = true;
  ComparisonOutcome outcome = compare_of(f, "aaaa", "bbbb", allowed);
  CHECK(contains(outcome.markdown,
                 "**Different machine or software stack (`--allow-different-stack`)**: libtorch: A "
                 "`1.13.1`, B `2.15.0`."));
  CHECK(contains(outcome.markdown,
                 "Software that differs, not by itself a reason to refuse: compiler: A `GCC 12.2.0`, "
                 "B `GCC 13.1.0`."));
  CHECK(outcome.stack_note == "libtorch: A `1.13.1`, B `2.15.0`");
}

TEST_CASE(
    "gate: a configuration that failed in B where it succeeded in A fails it; one B has not finished is not judged") {
  ReportFixture f("gate_failed_in_b.sqlite");
  for (const char* id : {"aaaa", "bbbb", "cccc", "dddd"})
    f.campaign(id, "exp", fmt::format("2024-05-0{}T09:00:00Z", id[0] - 'a' + 1));
  std::map<std::string, std::int64_t> ranks2_attempts;
  for (int r = 0; r < 3; ++r) {
    for (const char* id : {"aaaa", "bbbb", "cccc", "dddd"}) {
      f.trial(train_trial("s", "ddp", 1, r, 1000 + r, 40, 500), id);
      FixtureTrial two = train_trial("s", "ddp", 2, r, 1800 + r, 40, 500);
      // B crashed in every repeat; C in one of three; D's were interrupted before they finished.
      if (id == std::string("bbbb") || (id == std::string("cccc") && r == 0)) {
        two.state = AttemptState::Crashed;
        two.error_reason = "rank 1 killed by signal 11\n(core dumped)";
      }
      const std::int64_t attempt = f.trial(two, id);
      if (id == std::string("dddd")) {
        f.store().db().exec(fmt::format("UPDATE attempts SET state = 'interrupted' WHERE id = {}", attempt));
      }
    }
  }
  ComparisonOptions gate;
  gate.fail_on_regression_pct = 10;
  ComparisonOutcome crashed = compare_of(f, "aaaa", "bbbb", gate);
  REQUIRE(crashed.gate);
  CHECK_FALSE(crashed.gate->passed());
  CHECK(crashed.gate->judged == 1);
  const std::string every =
      "s ddp ×2: in B 3 of 3 trials failed (the latest attempt of one: crashed: rank 1 killed by signal 11\\n(core "
      "dumped))";
  CHECK(crashed.gate->failed_in_b == std::vector<std::string>{every});
  CHECK(contains(crashed.markdown, "- only in A: s ddp ×2; in B 3 of 3 trials failed"));
  CHECK(contains(crashed.markdown, "**Failed**: 1 configuration failed in B where it succeeded in A"));
  CHECK_FALSE(contains(crashed.markdown, "Passed"));
  CHECK(gate_summary(*crashed.gate) == "regression gate (10 %): FAILED (0 of 1 judged, 1 failed in B): " + every);
  // Figures on both sides, but a failure in B that A did not have.
  ComparisonOutcome flaky = compare_of(f, "aaaa", "cccc", gate);
  CHECK(flaky.gate->judged == 2);
  REQUIRE(flaky.gate->failed_in_b.size() == 1);
  CHECK(
      contains(flaky.gate->failed_in_b[0], "s ddp ×2: in B 1 of 3 trials failed (the latest attempt of one: crashed"));
  CHECK(contains(flaky.gate->failed_in_b[0], ", in A none"));
  // A failing where B succeeded is no regression; B losing every figure A has is, although A
  // failed once too.
  CHECK(compare_of(f, "bbbb", "cccc", gate).gate->failed_in_b.empty());
  REQUIRE(compare_of(f, "cccc", "bbbb", gate).gate->failed_in_b.size() == 1);
  // Not finished in B: named as not judged, and the gate judges the rest.
  ComparisonOutcome unfinished = compare_of(f, "aaaa", "dddd", gate);
  CHECK(unfinished.gate->passed());
  CHECK(unfinished.gate->not_judged ==
        std::vector<std::string>{"s ddp ×2: in B not run to the end (3 trials not run, running or interrupted)"});
  CHECK(contains(gate_summary(*unfinished.gate), "(1 judged, 1 not judged)"));
}

TEST_CASE("compare: stacks are held against each other study by study; a study with no figures in B is no difference") {
  ReportFixture f("stacks_by_study.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  FixtureProvenance engine, peer;  // the peer's program spells its LibTorch its own way
  peer.software_stack = R"({"libtorch":"2.15.0+cpu","mpi":"Open MPI 4.1.4","compiler":"GCC 12.2.0"})";
  engine.software_stack = R"({"libtorch":"2.15.0","mpi":"Open MPI 4.1.4","compiler":"GCC 12.2.0"})";
  for (int r = 0; r < 2; ++r) {
    for (const char* id : {"aaaa", "bbbb"}) {
      f.provenance(f.trial(train_trial("engine", "ddp", 1, r, 1000 + r, 40, 500), id), engine);
      FixtureTrial p = peer_trial("peer", 1, r, 900 + r, 45);
      if (id == std::string("bbbb")) p.state = AttemptState::Failed;
      f.provenance(f.trial(p, id), peer);
    }
  }
  CHECK_NOTHROW(compare_of(f, "aaaa", "bbbb", {}));
  // A real difference in a study both ran is still refused.
  f.campaign("cccc", "exp", "2024-05-03T09:00:00Z");
  FixtureProvenance newer = engine;
  newer.software_stack = R"({"libtorch":"2.16.0","mpi":"Open MPI 4.1.4","compiler":"GCC 12.2.0"})";
  for (int r = 0; r < 2; ++r)
    f.provenance(f.trial(train_trial("engine", "ddp", 1, r, 1000 + r, 40, 500), "cccc"), newer);
  try {
    compare_of(f, "aaaa", "cccc", {});
    FAIL("different LibTorch versions in one study were compared without being asked to");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitIncomparable);
    CHECK(contains(e.what(), "libtorch: A `2.15.0`, B `2.16.0`"));
  }
}
