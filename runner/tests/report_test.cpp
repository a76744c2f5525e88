// mtrun report and compare, rendered from small databases built through the Store API.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "report/sections/comm_table.h"
#include "report/model/groups.h"
#include "report/report.h"
#include "report/sections/report_sections.h"
#include "report/model/results_source.h"
#include "report/sections/training_tables.h"
#include "report_fixture.h"
#include "runner_error.h"

using namespace mt;
using namespace mt::testing;

namespace {

// The golden database: DDP at 1 and 2 ranks (two sync modes, one outlier), FSDP at 1 rank with two
// repeats (n < 3) and 2 ranks with one failure, an all_reduce measurement, and one dirty-tree trial.
void build_golden(ReportFixture& f) {
  f.campaign("c0ffee0123456789", "golden", "2024-05-01T09:00:00Z");
  std::vector<std::int64_t> attempts;
  auto add = [&](FixtureTrial t) {
    t.campaign = "c0ffee0123456789";
    attempts.push_back(f.trial(t));
  };
  const double ddp1[] = {1000, 1010, 990};
  for (int r = 0; r < 3; ++r) add(train_trial("ddp_single", "ddp", 1, r, ddp1[r], 40 + r, 500 + r));
  const double every[] = {1800, 1810, 1790}, last[] = {1900, 1910, 1300};
  for (int r = 0; r < 3; ++r) {
    add(train_trial("ddp_scaling", "ddp", 2, r, every[r], 45 + r * 0.5, 520, "every"));
    add(train_trial("ddp_scaling", "ddp", 2, r, last[r], 43 + r * 0.5, 521, "last"));
  }
  for (int r = 0; r < 2; ++r) add(train_trial("fsdp_scaling", "fsdp", 1, r, 700 + 10 * r, 58, 480));
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("fsdp_scaling", "fsdp", 2, r, 1300 + 20 * r, 62, 300 + r);
    if (r == 2) {
      t.state = AttemptState::Crashed;
      t.result = nlohmann::json::object();
      t.error_rank = 1;
      t.error_step = 7;
      t.error_reason = "rank 1 died of signal 9";
    }
    add(t);
  }
  for (int r = 0; r < 2; ++r) {
    FixtureTrial t;
    t.study = "collectives";
    t.workload = "comm";
    t.params = {{"ranks", "4"}, {"operation", "all_reduce"}, {"bytes", "1048576"}};
    t.axes = {"operation"};
    t.repeat = r;
    const double algbw = 5.0 - 0.1 * r;
    const nlohmann::json row = {{"operation", "all_reduce"}, {"bytes", 1048576},    {"in_place", false},
                                {"latency_us", 210.0 + r},   {"algbw_gbps", algbw}, {"busbw_gbps", algbw * 1.5},
                                {"wrong_values", 0}};
    t.result = {{"schema_version", 1},
                {"benchmark", "comm"},
                {"status", "ok"},
                {"world_size", 4},
                {"rows", nlohmann::json::array({row})}};
    add(t);
  }
  for (size_t i = 0; i < attempts.size(); ++i) {
    FixtureProvenance p;
    if (i == 1) {  // ddp_single repeat 1 ran from a modified tree
      p.tree_dirty = true;
      p.diff_hash = "9f86d081884c7d65";
      p.complete = false;
      p.missing_fields = R"(["clean_tree"])";
    }
    if (i == 13) continue;  // the crashed attempt: provenance is captured for succeeded work only here
    f.provenance(attempts[i], p);
  }
  f.pin_timestamps();
}

// A 1-rank trial of `study` at `precision` (an axis): the engine trains, the other studies are commands.
FixtureTrial precision_trial(const std::string& study, const std::string& precision, int repeat, double tokens) {
  FixtureTrial t = peer_trial(study, 1, repeat, tokens, 1e6 / tokens);
  if (study == "engine") t.workload = "train";
  t.params["precision"] = precision;
  t.axes.push_back("precision");
  return t;
}

}  // namespace

TEST_CASE("report: golden output, byte for byte") {
  ReportFixture f("golden.sqlite");
  build_golden(f);
  RenderedReport report = render_latest(f, false, "report");
  check_golden("report.md", report.markdown);
  std::vector<std::string> files;
  for (const auto& plot : report.plots) files.push_back(plot.file);
  // The collectives ran at one message size: no curve to draw, so no communication plot.
  CHECK(files == std::vector<std::string>{"tokens_per_sec.svg", "peak_memory.svg", "model_state.svg",
                                          "step_breakdown.svg", "step_times.svg"});
  for (const auto& plot : report.plots) check_golden("report/" + plot.file, plot.svg);
  CHECK(render_latest(f, false, "report").markdown == report.markdown);  // deterministic
}

TEST_CASE("report: a dirty-tree trial produces the incomplete-provenance warning naming it") {
  ReportFixture f("dirty.sqlite");
  f.campaign("c1");
  auto clean = f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500));
  auto dirty = f.trial(train_trial("s", "ddp", 1, 1, 1000, 40, 500));
  f.provenance(clean, {});
  FixtureProvenance p;
  p.tree_dirty = true;
  p.complete = false;
  p.missing_fields = "[]";
  f.provenance(dirty, p);
  auto db = open_results(f.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  std::string md = render_report(data, {}).markdown;
  CHECK(contains(md, "**Incomplete provenance in 1 of 2 trials.**"));
  std::string dirty_id = data.trials[1].identity.substr(0, 12);
  CHECK(contains(md, "> - 1 of 2 trials ran an experiment whose repository had uncommitted changes (`clean_tree`)"));
  CHECK(contains(md, "- missing clean tree (uncommitted changes) (1 trial): `" + dirty_id + "` s ddp ×1, repeat 1\n"));
  CHECK_FALSE(contains(md, "`" + data.trials[0].identity.substr(0, 12) + "` s ddp ×1, repeat 0"));
  CHECK_FALSE(contains(md, "Mixed provenance"));  // same commit: incomplete, not mixed
}

TEST_CASE("report: mixed revisions are refused without --allow-mixed and labelled with it") {
  ReportFixture f("mixed.sqlite");
  f.campaign("c1");
  FixtureProvenance a, b;
  b.source_commit = b.build_revision = "2222222222222222222222222222222222222222";
  f.provenance(f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500)), a);
  f.provenance(f.trial(train_trial("s", "ddp", 1, 1, 1100, 40, 500)), b);
  f.provenance(f.trial(train_trial("s", "ddp", 2, 0, 1900, 42, 500)), a);
  try {
    render_latest(f);
    FAIL("a mixed report was rendered");
  } catch (const RunnerError& e) {
    CHECK(e.exit_code() == kExitUsage);
    CHECK(std::string(e.what()) ==
          "refusing to put results from 2 revisions (1111111111111111111111111111111111111111 in 2 trials, "
          "2222222222222222222222222222222222222222 in 1 trial) in one comparison; report one campaign "
          "(--campaign ID), or pass --allow-mixed to report them together (the tables then say which rows "
          "come from where)");
  }
  std::string md = render_latest(f, true).markdown;
  CHECK(contains(md, "**Mixed provenance: these results come from 2 revisions"));
  CHECK(
      contains(md, "**Mixed provenance (`--allow-mixed`): rows come from different builds; see the `stack` column.**"));
  CHECK(contains(md, "| S1+S2 mixed |"));  // the 1-rank group spans both revisions
  CHECK(contains(md, "| n | stack |"));
}

TEST_CASE("report: different container images are mixed results too") {
  ReportFixture f("images.sqlite");
  f.campaign("c1");
  FixtureProvenance a, b;
  b.image_id = "sha256:bbbb";
  f.provenance(f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500)), a);
  f.provenance(f.trial(train_trial("s", "ddp", 1, 1, 1000, 40, 500)), b);
  CHECK_THROWS_AS(render_latest(f), RunnerError);
}

TEST_CASE("report: scaling efficiency and memory saving against DDP") {
  ReportFixture f("scaling.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    f.trial(train_trial("single", "ddp", 1, r, 1000 + 10 * (r - 1), 40, 500));
    f.trial(train_trial("single", "fsdp", 1, r, 800, 50, 450));
    f.trial(train_trial("scale", "ddp", 2, r, 1800, 44, 520, "last"));
    f.trial(train_trial("scale", "ddp", 2, r, 1700, 46, 520, "every"));
    f.trial(train_trial("scale", "fsdp", 2, r, 1200, 55, 312, "every"));
  }
  auto db = open_results(f.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  std::vector<Group> groups = group_trials(data.trials);
  CHECK(data.reference_strategy == "ddp");  // a campaign that kept no reference: the engine's then
  auto rows = training_rows(groups_of(groups, "train"), data.reference_strategy);
  REQUIRE(rows.size() == 5);
  // Ordered ddp ×1, ddp ×2 (every, last), fsdp ×1, fsdp ×2.
  CHECK(rows[0].group->strategy == "ddp");
  CHECK(rows[0].group->ranks == 1);
  CHECK(*rows[0].scaling_efficiency == doctest::Approx(1.0));
  CHECK(rows[1].group->config == "gradient_sync_mode=every");
  CHECK(*rows[1].scaling_efficiency == doctest::Approx(1700.0 / (1000 * 2)));
  CHECK(*rows[2].scaling_efficiency == doctest::Approx(0.9));
  CHECK(*rows[4].scaling_efficiency == doctest::Approx(1200.0 / 1600));
  // FSDP ×2 (every) is compared with DDP ×2 in the same sync mode: (520 − 312) ÷ 520 = 40 %.
  CHECK(rows[4].reference == rows[1].group);
  CHECK(*rows[4].memory_saving_vs_reference == doctest::Approx(0.4));
  CHECK(*rows[4].step_delta_vs_reference == doctest::Approx((55.0 - 46) / 46));
  CHECK(*rows[3].memory_saving_vs_reference == doctest::Approx(0.1));  // fsdp ×1 vs ddp ×1
  // Another reference: ddp ×2 (every) is compared with fsdp ×2 (every), fsdp with nothing.
  auto by_fsdp = training_rows(groups_of(groups, "train"), "fsdp");
  CHECK(by_fsdp[1].reference == by_fsdp[4].group);
  CHECK(*by_fsdp[1].memory_saving_vs_reference == doctest::Approx((312.0 - 520) / 312));
  CHECK(by_fsdp[4].reference == by_fsdp[4].group);
  CHECK(*by_fsdp[4].memory_saving_vs_reference == doctest::Approx(0.0));  // shown as "reference"
  CHECK_FALSE(training_rows(groups_of(groups, "train"))[4].reference);    // no reference: no comparison
  // Model state (fixture: a 1 MiB model, AdamW): DDP holds 4 MiB a rank; FSDP on 2 ranks half.
  CHECK(rows[1].model_state_mib.mean == doctest::Approx(4.0));
  CHECK(rows[4].model_state_mib.mean == doctest::Approx(2.0));
  CHECK(*rows[4].state_saving_vs_reference == doctest::Approx(0.5));
  CHECK(*rows[3].state_saving_vs_reference == doctest::Approx(0.0));  // one rank: nothing to shard
  std::string md = render_report(data, {}).markdown;
  CHECK(contains(md, "Every row: precision fp32."));
  CHECK(contains(md, "| fsdp | 2 | scale gradient_sync_mode=every |"));
  CHECK(contains(md, "| 2.0 ± 0.0 | 75.0 % | +40.0 % | +50.0 % | +19.6 % | 3 |"));
  CHECK(contains(md, "| 90.0 % | reference | reference | reference | 3 |"));
}

TEST_CASE("report: the runtime table has a column for each collective the results count, none known in advance") {
  ReportFixture f("runtime.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 2; ++r) {
    FixtureTrial ddp = train_trial("scale", "ddp", 2, r, 1800, 44, 520);
    // `reduce`: a kind the runner has never heard of; `broadcast`: carried but never issued.
    ddp.result["collectives_per_step"] = {
        {"sync_rounds", 1}, {"all_reduce", 3}, {"all_gather", 0}, {"broadcast", 0}, {"reduce", 2}};
    f.trial(ddp);
    FixtureTrial fsdp = train_trial("scale", "fsdp", 2, r, 1200, 55, 312);
    fsdp.result["collectives_per_step"] = {
        {"sync_rounds", 1}, {"all_reduce", 0}, {"all_gather", 4}, {"broadcast", 0}, {"all_to_all", 1 + r}};
    f.trial(fsdp);
  }
  auto db = open_results(f.path());
  const std::string md = render_report(load_report_data(*db, {latest_campaign(*db)}), {}).markdown;
  // sync_rounds first, then the kinds in name order; one no configuration issued is left out, and a
  // kind a result does not carry is "-".
  CHECK(contains(md,
                 "| grad accum | sync_rounds/step | all_gather/step | all_reduce/step | all_to_all/step | "
                 "reduce/step | n |\n"));
  CHECK(contains(md, "| ddp | 2 | scale | auto | last | 2 | 1 | 0 | 3 | - | 2 | 2 |\n"));
  CHECK(contains(md, "| fsdp | 2 | scale | auto | every | 2 | 1 | 4 | 0 | 1.50 ± 0.71 ⚠n<3 | - | 2 |\n"));
  CHECK(!contains(md, "broadcast/step"));
}

TEST_CASE("report: without a provenance row the result's environment describes the trial") {
  ReportFixture f("fallback.sqlite");
  f.campaign("c1");
  f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500));
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "missing provenance record (only the result's environment is known)"));
  CHECK(contains(md,
                 "| S1 | s | `1111111111111111111111111111111111111111` | unknown | mtengine (not hashed) | "
                 "result environment only | 1 | 0 |"));
  CHECK(contains(md, "| LibTorch | 1.13.1 |"));
}

TEST_CASE("report: failures list outcome, rank, step and log; campaigns are chosen by id or experiment") {
  ReportFixture f("failures.sqlite");
  f.campaign("aaaa0001", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb0002", "exp", "2024-05-02T09:00:00Z");
  FixtureTrial failed = train_trial("s", "ddp", 2, 0, 0, 0, 0);
  failed.campaign = "bbbb0002";
  failed.state = AttemptState::TimedOut;
  failed.result = nlohmann::json::object();
  failed.error_rank = 0;
  failed.error_step = 12;
  failed.error_reason = "trial exceeded its timeout; every rank was killed";
  f.trial(failed);
  auto db = open_results(f.path());
  CHECK(campaign_by_id(*db, "bbbb").id == "bbbb0002");
  CHECK_THROWS_WITH_AS(campaign_by_id(*db, "cccc"), "no campaign 'cccc' in the database", RunnerError);
  CHECK(experiment_campaigns(*db, "exp").size() == 2);
  ReportData data = load_report_data(*db, {campaign_by_id(*db, "bbbb")});
  std::string md = render_report(data, {}).markdown;
  CHECK(contains(md,
                 "| timed_out | 1 | 0 | 12 | trial exceeded its timeout; every rank was killed | "
                 "`results/runs/bbbb0002/"));
  CHECK(contains(md, "1 trial: 0 succeeded, 1 did not"));
}

TEST_CASE("report: of campaigns created in the same second with nothing run, the latest is the one added last") {
  ReportFixture f("same_second.sqlite");
  f.campaign("aaaa0001", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb0002", "exp", "2024-05-01T09:00:00Z");
  auto db = open_results(f.path());
  CHECK(latest_campaign(*db).id == "bbbb0002");
}

TEST_CASE("report: the failures table's rank comes from the engine's message when none was recorded") {
  ReportFixture f("failures_rank.sqlite");
  f.campaign("aaaa0001", "exp", "2024-05-01T09:00:00Z");
  FixtureTrial failed = train_trial("s", "ddp", 2, 0, 0, 0, 0);
  failed.campaign = "aaaa0001";
  failed.state = AttemptState::Failed;
  failed.result = nlohmann::json::object();
  failed.error_reason = "mtengine: rank 1 (node7): MPI_Allreduce failed";
  f.trial(failed);
  CHECK(
      contains(render_latest(f).markdown, "| failed | 1 | 1 | - | mtengine: rank 1 (node7): MPI_Allreduce failed | "));
}

TEST_CASE("compare: ratio of means and Welch p-value, flagging differences within noise") {
  ReportFixture f("compare.sqlite");
  f.campaign("aaaa", "exp", "2024-05-01T09:00:00Z");
  f.campaign("bbbb", "exp", "2024-05-02T09:00:00Z");
  const double a_tokens[] = {1000, 1010, 990}, b_tokens[] = {1200, 1212, 1188};
  const double a_mem[] = {500, 510, 490}, b_mem[] = {502, 508, 493};
  for (int r = 0; r < 3; ++r) {
    f.trial(train_trial("s", "ddp", 1, r, a_tokens[r], 40, a_mem[r]), "aaaa");
    f.trial(train_trial("s", "ddp", 1, r, b_tokens[r], 40, b_mem[r]), "bbbb");
  }
  std::string md = render_comparison_of(f, "aaaa", "bbbb");
  CHECK(contains(md, "1 test was made here, so p (Holm) corrects for making them together"));
  // tokens/s: 1000 vs 1200, s = 10 vs 12, Welch t = −22.18, ν = 3.87 → p ≈ 3e-5. B is faster.
  CHECK(contains(md, "| tokens_per_sec | 1200 ± 12 (3) | 1000 ± 10 (3) | 1.200 | < 0.001 | < 0.001 | faster |"));
  // Step time is the same measurement: shown, never given a verdict of its own that could disagree.
  CHECK(contains(
      md,
      "| step_time_ms | 40.00 ± 0.00 (3) | 40.00 ± 0.00 (3) | 1.000 | - | - | same measurement as tokens_per_sec |"));
  // Peak memory is context for a speed comparison, not a second test.
  CHECK(contains(md, "| peak_memory_mb | 501.0 ± 7.5 (3) | 500.0 ± 10.0 (3) | 1.002 | - | - | context, not tested |"));
}

TEST_CASE("report: sections of other workloads and of faults appear only when such trials exist") {
  ReportFixture f("sections.sqlite");
  f.campaign("c1");
  f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500));
  CHECK_FALSE(contains(render_latest(f).markdown, "## Workload kernels"));
  CHECK_FALSE(contains(render_latest(f).markdown, "## Fault scenarios"));
  FixtureTrial other;  // a workload the report has no layout of its own for
  other.study = "kernels";
  other.workload = "kernels";
  other.params = {{"ranks", "2"}, {"experts", "4"}};
  other.result = {{"status", "ok"}, {"world_size", 2}, {"tokens_per_sec", 5000.0}, {"misrouted_tokens", 0}};
  f.trial(other);
  FixtureTrial fault = train_trial("faults", "ddp", 2, 0, 0, 0, 0);
  fault.params["fault_step"] = "5";
  fault.state = AttemptState::Failed;
  fault.result = nlohmann::json::object();
  fault.error_rank = 1;
  fault.error_step = 5;
  fault.error_reason = "injected fault";
  f.trial(fault);
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "## Workload kernels"));
  CHECK(contains(md, "| kernels ×2 | misrouted_tokens | 0 ⚠n<3 | 1 |"));
  CHECK(contains(md, "## Fault scenarios"));
  CHECK(contains(md, "| faults ddp ×2 | 1 failed |"));
  CHECK(contains(md, "| failed | 1 | 1 | 5 | injected fault |"));
}

TEST_CASE("report: where compared studies' models started, when one started from given weights") {
  ReportFixture f("initial_weights.sqlite");
  f.campaign("c1");
  const std::string sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  for (int r = 0; r < 3; ++r) {
    FixtureTrial engine = train_trial("engine", "ddp", 1, r, 1200 + r, 40, 500);
    engine.result["initial_weights"] = nullptr;  // the engine initialised from its seed
    f.trial(engine);
    FixtureTrial peer = train_trial("peer", "ddp", 1, r, 1000 + r, 48, 520);
    peer.workload = "command";
    peer.result["initial_weights"] = {{"path", nullptr}, {"sha256", sha}, {"source", "the engine's weights"}};
    f.trial(peer);
  }
  CHECK(contains(render_latest(f).markdown,
                 "Initial weights, as each study's results record them (a file's SHA-256 per configuration): "
                 "`engine` from its seed; `peer` from the engine's weights (`0123456789ab`).\n"));
}

TEST_CASE("report: the first study against the fastest alternative, at the other precision where that is faster") {
  ReportFixture f("best_alternative.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    f.trial(precision_trial("engine", "fp32", r, 1200 + r));
    f.trial(precision_trial("engine", "bf16", r, 1500 + r));
    f.trial(precision_trial("eager", "fp32", r, 1000 + r));
    f.trial(precision_trial("compiled", "fp32", r, 1100 + r));  // the fastest alternative at fp32
    f.trial(precision_trial("eager", "bf16", r, 700 + r));
    f.trial(precision_trial("compiled", "bf16", r, 800 + r));  // slower than its fp32: a user would run fp32
  }
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "### Against the fastest alternative"));
  const std::string table = md.substr(md.find("### Against the fastest alternative"));
  CHECK(contains(
      table, "| engine ÷ compiled, ddp ×1 precision=fp32 | tokens_per_sec | 1201 ± 1 (3) | 1101 ± 1 (3) | 1.091 |"));
  CHECK(contains(table,
                 "| engine ÷ compiled, ddp ×1 precision=bf16 (the alternative at precision=fp32) | tokens_per_sec | "
                 "1501 ± 1 (3) | 1101 ± 1 (3) | 1.363 |"));
  CHECK_FALSE(contains(table, "÷ eager"));
}

TEST_CASE("report: no fastest-alternative table where each configuration has one alternative at its precision") {
  ReportFixture f("one_alternative.sqlite");
  f.campaign("c1");
  // One peer at both precisions; its bf16 is faster, but bf16 cannot stand in for an fp32 run.
  for (int r = 0; r < 3; ++r) {
    f.trial(precision_trial("engine", "fp32", r, 1200 + r));
    f.trial(precision_trial("engine", "bf16", r, 1500 + r));
    f.trial(precision_trial("peer", "fp32", r, 1000 + r));
    f.trial(precision_trial("peer", "bf16", r, 1100 + r));
  }
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md, "## Studies compared"));
  CHECK_FALSE(contains(md, "### Against the fastest alternative"));
}

TEST_CASE("report: studies that ran the same configuration are compared, first study over second") {
  ReportFixture f("studies.sqlite");
  f.campaign("c1");
  const double engine[] = {1200, 1212, 1188}, peer[] = {1000, 1010, 990};
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      f.trial(train_trial("engine", "ddp", ranks, r, engine[r] * ranks, 40, 500));
      FixtureTrial p = train_trial("peer", "ddp", ranks, r, peer[r] * ranks, 48, 520);
      p.workload = "command";  // a peer framework run as a command study
      p.result["environment"]["torch"] = "2.15.0";
      f.trial(p);
    }
    f.trial(train_trial("engine", "fsdp", 2, r, 900, 60, 300));  // no peer ran fsdp
  }
  std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "## Studies compared"));
  // 1200 ± 12 vs 1000 ± 10: Welch t = 22.2 → p < 0.001
  // Two tests (ddp ×1, ddp ×2), corrected together.
  CHECK(contains(md, "2 tests were made here"));
  // Each side of a ratio names its version: the engine's LibTorch, the peer's PyTorch.
  CHECK(contains(md,
                 "| engine (LibTorch 1.13.1) ÷ peer (PyTorch 2.15.0), ddp ×1 | tokens_per_sec | 1200 ± 12 (3) | 1000 ± "
                 "10 (3) | 1.200 | < 0.001 | < 0.001 | faster |"));
  CHECK(contains(md,
                 "| engine (LibTorch 1.13.1) ÷ peer (PyTorch 2.15.0), ddp ×2 | tokens_per_sec | 2400 ± 24 (3) | 2000 ± "
                 "20 (3) | 1.200 |"));
  CHECK_FALSE(contains(md, "| engine (LibTorch 1.13.1) ÷ peer (PyTorch 2.15.0), ddp ×1 | step_time_ms |"));
  CHECK_FALSE(contains(md, "fsdp ×2 | tokens_per_sec"));

  CHECK_FALSE(contains(md, "Initial weights"));  // neither side records starting from given weights

  ReportFixture single("one_study.sqlite");
  single.campaign("c1");
  for (int r = 0; r < 3; ++r) single.trial(train_trial("only", "ddp", 1, r, 1000 + r, 40, 500));
  CHECK_FALSE(contains(render_latest(single).markdown, "## Studies compared"));
}

TEST_CASE("report: the section table is the document's order, each section once, answers first") {
  std::vector<std::string> names;
  for (const auto& s : report_sections()) names.push_back(s.name);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  auto at = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
  CHECK(at("header") == 0);
  CHECK(at("answers") == 1);
  CHECK(at("answers") < at("summary"));
  CHECK(at("summary") < at("training"));
  CHECK(at("environment") == long(names.size()) - 1);
  // The rendered report follows the table: its headings appear in the sections' order.
  ReportFixture f("sections.sqlite");
  engine_and_peer_campaign(f);
  const std::string md = render_latest(f, false, "sections").markdown;
  CHECK(md.find("## Answers") < md.find("## Summary"));
  CHECK(md.find("## Summary") < md.find("## Training"));
  CHECK(md.find("## Training") < md.find("## Plots"));
  CHECK(md.find("## Plots") < md.find("## Environment and provenance"));
}
