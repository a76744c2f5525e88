// The answer first: every report opens with its summary, and comparisons give one verdict per
// measurement, corrected for how many were made.
#include <doctest/doctest.h>

#include "report/report.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

TEST_CASE("summary: the headline comparisons, best configurations and warnings come before any wide table") {
  ReportFixture f("summary.sqlite");
  engine_and_peer_campaign(f);
  std::string md = render_latest(f).markdown;
  size_t summary = md.find("## Summary"), first_table = md.find("| strategy |");
  REQUIRE(summary != std::string::npos);
  CHECK(summary < first_table);
  CHECK(md.find("**Warnings**") < first_table);
  CHECK(contains(
      md,
      "- engine (LibTorch 1.13.1) ÷ peer, ddp ×1: tokens_per_sec 1.200× (1200 vs 1000), p (Holm, 2 tests) < 0.001, "
      "n = 3 + 3 — **faster**.\n"));
  CHECK(contains(
      md,
      "- engine (LibTorch 1.13.1) ÷ peer, ddp ×2: tokens_per_sec 1.200× (2400 vs 2000), p (Holm, 2 tests) < 0.001, "
      "n = 3 + 3 — **faster**.\n"));
  CHECK(contains(
      md, "| 1 | ddp (engine): 1200 ± 12 | ddp (peer): 1000 ± 10 | 1.200 | < 0.001 | faster | ddp (engine): 4.0 |"));
  CHECK(contains(md, "- 4 of 4 configurations have fewer than 5 successful repeats (n = 3)"));
}

TEST_CASE("verdicts: tokens/s and step time are one measurement with one verdict; Holm corrects several tests") {
  // Three configurations, each with a raw Welch p of 0.021 (100, 101, 102 against 97, 98, 99):
  // alone each would differ; tested together, Holm's correction (× 3) puts them within noise.
  ReportFixture f("holm.sqlite");
  f.campaign("c1");
  const double engine[] = {100, 101, 102}, peer[] = {97, 98, 99};
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2, 4}) {
      f.trial(train_trial("engine", "ddp", ranks, r, engine[r], 40 + r, 500));
      f.trial(peer_trial("peer", ranks, r, peer[r], 41 + r));
    }
  }
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "3 tests were made here, so p (Holm) corrects for making them together"));
  CHECK(contains(md,
                 "| engine (LibTorch 1.13.1) ÷ peer, ddp ×4 | tokens_per_sec | 101 ± 1 (3) | 98 ± 1 (3) | 1.031 | "
                 "0.021 | 0.064 | within noise |"));
  // Step time restates tokens/s: never tested on its own, so it cannot disagree with it, and not
  // repeated in the studies' comparison.
  CHECK(contains(md, "`step_time_ms` restates a tested metric (the same measurement) and is left out here"));
  CHECK_FALSE(contains(md, "| step_time_ms | 41.00 ± 1.00 (3) | 42.00 ± 1.00 (3) |"));
  CHECK(contains(
      md,
      "- engine (LibTorch 1.13.1) ÷ peer, ddp ×1: tokens_per_sec 1.031× (101 vs 98), p (Holm, 3 tests) = 0.064, "
      "n = 3 + 3 — **within noise**.\n"));
}

TEST_CASE("compare: one verdict per group, with the number of tests and Holm's correction") {
  ReportFixture f("compare_holm.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  const double a_tokens[] = {97, 98, 99}, b_tokens[] = {100, 101, 102};
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      f.trial(train_trial("s", "ddp", ranks, r, a_tokens[r], 40, 500), "aaaa");
      f.trial(train_trial("s", "ddp", ranks, r, b_tokens[r], 39, 500), "bbbb");
    }
  }
  std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md, "2 tests were made here"));
  // Raw p 0.021, × 2 = 0.043: B is faster beyond noise in both groups.
  CHECK(contains(md, "| s ddp ×1 | tokens_per_sec | 101 ± 1 (3) | 98 ± 1 (3) | 1.031 | 0.021 | 0.043 | faster |"));
  CHECK(contains(md,
                 "| s ddp ×1 | step_time_ms | 39.00 ± 0.00 (3) | 40.00 ± 0.00 (3) | 0.975 | - | - | "
                 "same measurement as tokens_per_sec |"));
}

TEST_CASE("verdicts: workloads without a fixed list test every measurement, never the environment's numbers") {
  ReportFixture f("generic_pairs.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    for (const char* study : {"a", "b"}) {
      FixtureTrial t;
      t.study = study;
      t.workload = "moe";
      t.params = {{"ranks", "2"}, {"experts", "4"}};
      t.repeat = r;
      t.result = {{"status", "ok"},
                  {"world_size", 2},
                  {"tokens_per_sec", 5000.0 + 10 * r},
                  {"misrouted_tokens", 0},
                  {"environment", {{"cpu_cores", 16}}},
                  {"model_config", {{"d_model", 64}}}};
      f.trial(t);
    }
  }
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| a ÷ b, ×2 | tokens_per_sec |"));
  CHECK(contains(md, "| a ÷ b, ×2 | misrouted_tokens |"));
  CHECK(contains(md, "2 tests were made here"));
  CHECK_FALSE(contains(md, "| environment.cpu_cores |"));
  CHECK_FALSE(contains(md, "model_config.d_model |"));
}
