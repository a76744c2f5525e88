// The MoE, tensor-parallel and process-group sections: what each must show from the results the
// engine writes.
#include <doctest/doctest.h>

#include "report/render/report_plots.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

FixtureTrial workload_trial(const std::string& workload, int ranks, int repeat, nlohmann::json result,
                            std::map<std::string, std::string> params = {}) {
  FixtureTrial t;
  t.study = workload;
  t.workload = workload;
  t.params = std::move(params);
  t.params["ranks"] = std::to_string(ranks);
  t.axes = {"ranks"};
  t.repeat = repeat;
  result["benchmark"] = workload;
  result["status"] = "ok";
  result["world_size"] = ranks;
  t.result = std::move(result);
  return t;
}

nlohmann::json moe_result(double hot_compute, double waiting) {
  return {{"routing", "hot"},
          {"tokens_per_rank", 2048},
          {"top_k", 1},
          {"imbalance", 3.0},
          {"dropped_tokens", 0},
          {"dispatch_ms", 10.0},
          {"compute_ms", hot_compute},
          {"combine_ms", waiting},
          {"step_ms", hot_compute + 20},
          {"tokens_per_sec", 20000.0},
          {"ids_wrong", 0},
          {"max_abs_error", 2e-7},
          {"atol", 1e-4},
          {"tokens_received", {6144, 683, 683, 682}},
          {"per_rank_ms",
           {{"dispatch", {10, 7, 9, 6}},
            {"compute", {hot_compute, 80, 82, 84}},
            {"combine", {9, waiting, waiting - 2, waiting - 4}}}}};
}

}  // namespace

TEST_CASE("moe section: phases, imbalance, the oracle, and per rank where the hot expert makes others wait") {
  ReportFixture f("moe_section.sqlite");
  f.campaign("c1");
  f.trial(workload_trial("moe", 4, 0, moe_result(380, 300)));
  f.trial(workload_trial("moe", 4, 1, moe_result(400, 320)));
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "## Mixture of experts"));
  CHECK(contains(md,
                 "| moe ×4 | 2048 | 1 | 3.00 ± 0.00 ⚠n<3 | 0 ± 0 ⚠n<3 | 10.00 ± 0.00 ⚠n<3 | 390.00 ± 14.14 ⚠n<3 | "
                 "310.00 ± 14.14 ⚠n<3 |"));
  CHECK(contains(md, "0 ids astray, max abs error 2e-07 (atol 0.0001)"));  // results from before the stamp
  // Per rank, means over the two runs: the hot expert's rank computes, the others wait in combine.
  CHECK(contains(md, "| moe ×4 | 0 | 6144 | 10.00 | 390.00 | 9.00 |"));
  CHECK(contains(md, "| moe ×4 | 1 | 683 | 7.00 | 80.00 | 310.00 |"));
  CHECK(contains(md, "| moe ×4 | 3 | 682 | 6.00 | 84.00 | 306.00 |"));
  CHECK_FALSE(contains(md, "| moe ×4 | 4 |"));
}

TEST_CASE("moe plot: a stacked bar per rank, the hot expert's compute beside the others' wait") {
  ReportFixture f("moe_plot.sqlite");
  f.campaign("c1");
  f.trial(workload_trial("moe", 4, 0, moe_result(380, 300)));
  f.trial(workload_trial("moe", 4, 1, moe_result(400, 320)));
  const RenderedReport report = render_latest(f, false, "moe");
  const Plot* plot = nullptr;
  for (const auto& p : report.plots) plot = p.file == "moe_per_rank.svg" ? &p : plot;
  REQUIRE(plot);
  CHECK(plot->chart.categories == std::vector<std::string>{"rank 0", "rank 1", "rank 2", "rank 3"});
  REQUIRE(plot->chart.series.size() == 3);
  CHECK(*plot->chart.series[1].values[0] == doctest::Approx(390));  // the hot expert computes
  CHECK(*plot->chart.series[2].values[1] == doctest::Approx(310));  // rank 1 waits in combine
  CHECK(contains(report.markdown, "![Mixture of experts: each rank's iteration](moe/moe_per_rank.svg)"));
  // Without a folder to write it to, there is no plot and no section for it.
  CHECK_FALSE(contains(render_latest(f).markdown, "## Workload plots"));
}

TEST_CASE("moe section: the oracle cell says how many tokens an engine found misrouted") {
  ReportFixture f("moe_misrouted.sqlite");
  f.campaign("c1");
  auto result = moe_result(380, 300);
  result["tokens_misrouted"] = 0;
  f.trial(workload_trial("moe", 4, 0, result));
  CHECK(contains(render_latest(f).markdown, "0 ids astray, 0 misrouted, max abs error 2e-07 (atol 0.0001)"));
}

TEST_CASE("tp section: the worst error per layer and tensor over the runs, and a failed check is marked") {
  ReportFixture f("tp_section.sqlite");
  f.campaign("c1");
  auto checks = [](double error, bool pass) {
    return nlohmann::json{{"atol", 1e-5},
                          {"checks",
                           {{{"layer", "row"}, {"tensor", "output"}, {"max_abs_error", error}, {"pass", pass}},
                            {{"layer", "mlp"}, {"tensor", "input_grad"}, {"max_abs_error", 0.0}, {"pass", true}}}}};
  };
  f.trial(workload_trial("tp", 2, 0, checks(1e-6, true)));
  f.trial(workload_trial("tp", 2, 1, checks(3e-5, false)));
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "## Tensor and sequence parallelism"));
  CHECK(contains(md, "| tp ×2 | row | output | 3e-05 | 1e-05 | **no** (1/2) |"));
  CHECK(contains(md, "| tp ×2 | mlp | input_grad | 0 | 1e-05 | yes (2/2) |"));
}

TEST_CASE("tp plot: per layer, the worst tensor's error as a fraction of the tolerance") {
  ReportFixture f("tp_plot.sqlite");
  f.campaign("c1");
  auto checks = [](double row_output, double row_grad) {
    return nlohmann::json{
        {"atol", 1e-5},
        {"checks",
         {{{"layer", "column"}, {"tensor", "output"}, {"max_abs_error", 0.0}, {"pass", true}},
          {{"layer", "row"}, {"tensor", "output"}, {"max_abs_error", row_output}, {"pass", true}},
          {{"layer", "row"}, {"tensor", "input_grad"}, {"max_abs_error", row_grad}, {"pass", true}}}}};
  };
  f.trial(workload_trial("tp", 2, 0, checks(2e-6, 1e-6)));
  f.trial(workload_trial("tp", 2, 1, checks(1e-6, 4e-6)));
  const RenderedReport report = render_latest(f, false, "tp");
  const Plot* plot = nullptr;
  for (const auto& p : report.plots) plot = p.file == "tp_error_margin.svg" ? &p : plot;
  REQUIRE(plot);
  CHECK(plot->chart.categories == std::vector<std::string>{"column", "row"});
  REQUIRE(plot->chart.series.size() == 1);
  CHECK(*plot->chart.series[0].values[0] == doctest::Approx(0.0));
  CHECK(*plot->chart.series[0].values[1] == doctest::Approx(0.4));  // the row layer's worst tensor, worst run
  CHECK(contains(report.markdown, "![Tensor parallelism: error against tolerance](tp/tp_error_margin.svg)"));
}

TEST_CASE("groups section: per-dimension times and membership, and whether the checksum caught the swap") {
  ReportFixture f("groups_section.sqlite");
  f.campaign("c1");
  auto result = [](double tp_ms, bool caught) {
    auto dim = [](int size, nlohmann::json members, int per_step, double ms) {
      return nlohmann::json{{"size", size},
                            {"members_of_rank_0", members},
                            {"collectives_per_step", per_step},
                            {"ms_per_step", ms},
                            {"members_ok", true}};
    };
    return nlohmann::json{
        {"groups", {{"tp", dim(2, {0, 1}, 4, tp_ms)}, {"pp", dim(1, {0}, 1, 0.01)}, {"dp", dim(2, {0, 2}, 1, 0.8)}}},
        {"hazard", {{"injected", true}, {"completed_without_error", true}, {"detected_by_checksum", caught}}}};
  };
  f.trial(workload_trial("groups", 4, 0, result(5.0, true), {{"order", "tp-pp-dp"}}));
  f.trial(workload_trial("groups", 4, 1, result(7.0, false), {{"order", "tp-pp-dp"}}));
  const std::string md = render_latest(f).markdown;
  REQUIRE(contains(md, "## Process groups"));
  CHECK(contains(md, "| tp | 2 | [0,1] | 4 | 6.000 ± 1.414 ⚠n<3 | yes (2/2) |"));
  CHECK(contains(md, "| dp | 2 | [0,2] | 1 | 0.800 ± 0.000 ⚠n<3 | yes (2/2) |"));
  CHECK(contains(md, "| yes (2/2) | **no** (1/2) |"));

  const RenderedReport plotted = render_latest(f, false, "groups");
  const Plot* plot = nullptr;
  for (const auto& p : plotted.plots) plot = p.file == "groups_time_per_step.svg" ? &p : plot;
  REQUIRE(plot);
  CHECK(plot->chart.categories == std::vector<std::string>{"tp", "pp", "dp"});
  REQUIRE(plot->chart.series.size() == 1);
  CHECK(*plot->chart.series[0].values[0] == doctest::Approx(6.0));
  CHECK(plot->chart.series[0].errors[0] == doctest::Approx(1.41421).epsilon(1e-4));
  CHECK(*plot->chart.series[0].values[2] == doctest::Approx(0.8));
}

TEST_CASE("summary: oversubscribed MoE, TP and groups runs are named in the warnings, fitting ones are not") {
  ReportFixture f("workload_oversubscribed.sqlite");
  f.campaign("c1");
  auto on_two_cores = [](nlohmann::json result, int ranks) {
    result["environment"] = {{"cpu_cores", 2}, {"threads_per_rank", 1}};
    result["hosts"] = nlohmann::json::array();
    for (int r = 0; r < ranks; ++r) result["hosts"].push_back("node1");
    return result;
  };
  f.trial(workload_trial("moe", 4, 0, on_two_cores(moe_result(380, 300), 4)));
  f.trial(workload_trial("tp", 2, 0, on_two_cores({{"atol", 1e-5}}, 2)));
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md,
                 "- ⚠oversubscribed: 1 configuration of the MoE, tensor-parallel and process-group benchmarks ran "
                 "more ranks × threads than the node's 2 cores (moe ×4): their correctness checks hold, but their "
                 "times include ranks waiting for a core.\n"));
}
