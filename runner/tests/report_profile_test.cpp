// The report's profiling sections: where a step's time goes (stacked bar, the numbers behind it,
// communication and the ranks' pace, links to one attempt's traces) and what profiling costs
// against the unprofiled twin. Profiled runs stay out of every other section.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "report/report.h"
#include "report/render/report_html.h"
#include "report/model/step_profile.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

nlohmann::json stats(double mean, double spread) {
  return {{"n", 30}, {"mean", mean}, {"std", spread}, {"min", mean - spread}, {"max", mean + spread}};
}

// One rank's summary as the engine writes it; rank 1 is 4 ms slower per step and waits 2 ms less.
nlohmann::json rank_summary(int rank, double step_ms, double communication_ms, double exposed_ms) {
  const double slower = 4.0 * rank, waits_less = 2.0 * rank;
  return {{"steps", 30},
          {"step_ms", stats(step_ms + slower, 1)},
          {"data_ms", stats(1, 0.1)},
          {"forward_backward_ms", stats(step_ms - 11 + slower, 1)},
          {"optimizer_ms", stats(10, 0.5)},
          {"communication_ms", stats(communication_ms, 1)},
          {"exposed_communication_ms", stats(exposed_ms - waits_less, 0.5)},
          {"overlap_fraction", stats(1 - (exposed_ms - waits_less) / communication_ms, 0.01)},
          {"collectives_per_step", stats(6, 0)},
          {"trace", fmt::format("rank_{:05d}.trace.json", rank)}};
}

// DDP ×2 at one bucket cap, repeat `repeat`: unprofiled, or profiled with its summary (and the
// traces kept, for the first repeat).
FixtureTrial bucket_trial(bool profiled, const std::string& cap, int repeat, double tokens, double step_ms) {
  FixtureTrial t = train_trial(profiled ? "buckets_profiled" : "buckets", "ddp", 2, repeat, tokens, step_ms, 500);
  t.params["bucket_cap_mb"] = cap;
  t.axes = {"bucket_cap_mb"};
  const int buckets = cap == "1" ? 6 : 2;
  t.result["buckets"] = {{"count", buckets},
                         {"bytes", cap == "1" ? nlohmann::json{1048576, 1048576, 1048576, 1048576, 1048576, 524288}
                                              : nlohmann::json{4194304, 1048576}}};
  t.result["collectives_per_step"] = {{"sync_rounds", 1}, {"all_reduce", buckets}, {"all_gather", 0}};
  if (!profiled) return t;
  const double exposed = cap == "1" ? 6 : 12;
  t.result["profile"] = {
      {"directory", "/runs/x/profile"},
      {"ranks", {rank_summary(0, step_ms - 2, 20, exposed), rank_summary(1, step_ms - 2, 20, exposed)}},
      {"step_ms_across_ranks", {{"min", step_ms - 2}, {"p50", step_ms}, {"max", step_ms + 2}}},
      {"straggler_ratio", (step_ms + 2) / step_ms}};
  if (repeat == 0) {
    t.files = {{"profile/profile.json", "{}\n"},
               {"profile/rank_00000.trace.json", "{\"traceEvents\": [0]}\n"},
               {"profile/rank_00001.trace.json", "{\"traceEvents\": [1]}\n"}};
  }
  return t;
}

// Bucket caps 1 and 25 MiB, three repeats each, unprofiled and profiled (the profiler costing 5 %).
void bucket_campaign(ReportFixture& f) {
  f.campaign("c1", "ddp_buckets");
  const double tokens[] = {1000, 1010, 990};
  for (int r = 0; r < 3; ++r) {
    for (const char* cap : {"1", "25"}) {
      f.trial(bucket_trial(false, cap, r, tokens[r], 100));
      f.trial(bucket_trial(true, cap, r, tokens[r] * 0.95, 105));
    }
  }
}

std::string section(const std::string& md, const std::string& heading) {
  auto start = md.find("## " + heading + "\n");
  if (start == std::string::npos) return "";
  auto end = md.find("\n## ", start + 1);
  return md.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("profile: the collectives cell names whatever kinds the results count, none known in advance") {
  ReportFixture f("profile_kinds.sqlite");
  f.campaign("c1", "ddp_buckets");
  for (int r = 0; r < 2; ++r) {
    FixtureTrial t = bucket_trial(true, "1", r, 1000, 105);
    // A kind the runner has never heard of, one the engine added later, and one counted zero times.
    t.result["collectives_per_step"] = {
        {"sync_rounds", 1}, {"all_reduce", 6}, {"reduce", 2}, {"all_to_all", 4}, {"broadcast", 0}};
    f.trial(t);
  }
  const std::string md = section(render_latest(f, false, "ddp_buckets").markdown, "Where a step's time goes");
  REQUIRE(!md.empty());
  // In name order; sync_rounds (rounds, not calls) and kinds never issued are left out.
  CHECK(contains(md, "| ddp | 2 | buckets_profiled bucket_cap_mb=1 | all_reduce 6, all_to_all 4, reduce 2 | 6.0 |"));
  CHECK(!contains(md, "broadcast"));
  CHECK(!contains(md, "sync_rounds"));
}

TEST_CASE("profile: a step's parts add up to its phases, communication carved out of forward-backward") {
  StepProfileRow r;
  r.step_ms = summarize({120});
  r.data_ms = summarize({2});
  r.forward_backward_ms = summarize({100});
  r.optimizer_ms = summarize({10});
  r.communication_ms = summarize({30});
  r.exposed_ms = summarize({10});
  StepParts p = r.parts();
  CHECK(p.data == 2);
  CHECK(p.compute == 70);  // 100 − 20 hidden − 10 exposed
  CHECK(p.hidden == 20);
  CHECK(p.exposed == 10);
  CHECK(p.optimizer == 10);
  CHECK(p.other == 8);  // 120 − (2 + 100 + 10)
  CHECK(p.data + p.compute + p.hidden + p.exposed + p.optimizer + p.other == 120);

  // More communication than forward-backward (ZeRO's sits in the optimizer phase): the rest comes out of it.
  r.forward_backward_ms = summarize({25});
  r.optimizer_ms = summarize({40});
  r.step_ms = summarize({67});
  p = r.parts();
  CHECK(p.compute == 0);
  CHECK(p.optimizer == 35);
  CHECK(p.data + p.compute + p.hidden + p.exposed + p.optimizer + p.other == 67);
}

TEST_CASE("profile: where a step's time goes, per profiled configuration, with one attempt's traces linked") {
  ReportFixture f("profile.sqlite");
  bucket_campaign(f);
  RenderedReport report = render_latest(f, false, "ddp_buckets");
  const std::string md = section(report.markdown, "Where a step's time goes");
  REQUIRE(!md.empty());
  CHECK(contains(md,
                 "From the profiled studies (`buckets_profiled`: `profile: true`, each trial run as `mtengine train "
                 "--profile`)"));
  CHECK(contains(md, "![Where a step's time goes](ddp_buckets/step_profile.svg)\n"));
  // Means over the two ranks, then over three repeats: step 103 + 2, exposed (6 + 4) / 2 = 5 ms of 20.
  CHECK(contains(md,
                 "| ddp | 2 | buckets_profiled bucket_cap_mb=1 | 105.00 ± 0.00 | 1.00 ± 0.00 | 94.00 ± 0.00 | "
                 "10.00 ± 0.00 | 20.00 ± 0.00 | 5.00 ± 0.00 | 75.0 ± 0.0 | 3 |\n"));
  CHECK(contains(md,
                 "| ddp | 2 | buckets_profiled bucket_cap_mb=25 | 105.00 ± 0.00 | 1.00 ± 0.00 | 94.00 ± 0.00 | "
                 "10.00 ± 0.00 | 20.00 ± 0.00 | 11.00 ± 0.00 | 45.0 ± 0.0 | 3 |\n"));
  const ReportTrial* traced = nullptr;
  auto db = open_results(f.path());
  ReportData data = load_report_data(*db, {latest_campaign(*db)});
  for (const auto& t : data.trials) {
    if (t.study == "buckets_profiled" && t.repeat_index == 0 && t.param("bucket_cap_mb") == "1") traced = &t;
  }
  REQUIRE(traced);
  const std::string id = traced->identity.substr(0, 12);
  CHECK(contains(
      md, fmt::format("| ddp | 2 | buckets_profiled bucket_cap_mb=1 | all_reduce 6 | 6.0 | 6 | 1.00 | "
                      "103.00 / 105.00 / 107.00 | 1.019 | [rank 0](ddp_buckets/traces/{0}/rank_00000.trace.json), "
                      "[rank 1](ddp_buckets/traces/{0}/rank_00001.trace.json) (trial {0} attempt 1) |\n",
                      id)));
  CHECK(contains(md, "| buckets_profiled bucket_cap_mb=25 | all_reduce 2 | 6.0 | 2 | 4.00 |"));

  // The traces and the chart are written into the report's folder.
  REQUIRE(report.files.size() == 4);
  CHECK(report.files_left_out == 0);
  CHECK(report.files[0].attempt_id == traced->succeeded_attempt_id);
  CHECK(report.files[0].name == "profile/rank_00000.trace.json");
  CHECK(report.files[0].path == "traces/" + id + "/rank_00000.trace.json");
  CHECK(read_attempt_file(*db, report.files[1].attempt_id, report.files[1].name) == "{\"traceEvents\": [1]}\n");
  const Plot* chart = nullptr;
  for (const auto& p : report.plots) chart = p.file == "step_profile.svg" ? &p : chart;
  REQUIRE(chart);
  CHECK(chart->chart.categories == std::vector<std::string>{"ddp bucket_cap_mb=1", "ddp bucket_cap_mb=25"});
  REQUIRE(chart->chart.series.size() == 5);  // no "other": the phases fill each step
  CHECK(chart->chart.series[1].name == "forward-backward");
  CHECK(chart->chart.series[1].values[0] == 74);  // 94 − 15 hidden − 5 exposed
  CHECK(chart->chart.series[2].values[1] == 9);   // 20 − 11 exposed
  CHECK(chart->chart.series[3].values[1] == 11);
  CHECK(contains(chart->svg, "exposed communication"));
}

TEST_CASE("profile: a page on standard output draws its chart but links no trace, having nowhere to write them") {
  ReportFixture f("profile_stdout.sqlite");
  bucket_campaign(f);
  auto db = open_results(f.path());
  ReportOptions options;
  options.plot_dir = "plots";  // as `report --html -o -` draws its plots inline
  options.writes_kept_files = false;
  const RenderedReport report = render_report(load_report_data(*db, {latest_campaign(*db)}), options);
  const std::string md = section(report.markdown, "Where a step's time goes");
  CHECK(contains(md, "![Where a step's time goes](plots/step_profile.svg)\n"));
  CHECK_FALSE(contains(report.markdown, "traces/"));
  CHECK(contains(md, "| 2 (saved with `-o`) |"));
  CHECK(contains(md,
                 "- The trace files are written beside the page only when it is saved with `-o FILE.html`: on "
                 "standard output it has no folder for them, so none is linked.\n"));
  CHECK(report.files.empty());
  CHECK(report.files_left_out == 4);
  CHECK_FALSE(contains(render_report_html(report, options.plot_dir), "traces/"));
}

TEST_CASE("profile: profiled runs stay out of the other sections; their overhead is set against the twin") {
  ReportFixture f("profile_overhead.sqlite");
  bucket_campaign(f);
  const std::string md = render_latest(f).markdown;
  CHECK(contains(section(md, "Training"), "| 2 | bucket_cap_mb=1 |"));
  CHECK_FALSE(contains(section(md, "Training"), "buckets_profiled"));
  CHECK_FALSE(contains(md, "## Studies compared"));
  const std::string overhead = section(md, "Profiler overhead");
  REQUIRE(!overhead.empty());
  CHECK(contains(overhead, "Overhead = 1 − profiled ÷ unprofiled tokens/s: 5.0 % here."));
  CHECK(contains(overhead, "- buckets_profiled ÷ buckets, ddp ×2 bucket_cap_mb=1: 5.0 % (slower).\n"));
  CHECK(contains(overhead,
                 "| buckets_profiled ÷ buckets, ddp ×2 bucket_cap_mb=25 | tokens_per_sec | 950 ± 10 (3) | "
                 "1000 ± 10 (3) | 0.950 |"));
  // Not saved: no chart, and the traces are counted, not linked.
  const std::string profile = section(md, "Where a step's time goes");
  CHECK_FALSE(contains(profile, "step_profile.svg"));
  CHECK(contains(profile, "| 2 (saved with `-o`) |"));
  CHECK(contains(profile,
                 "- The chart and the trace files are written beside the report when it is saved with `-o FILE`.\n"));
}

TEST_CASE("profile: without an unprofiled twin the overhead is not measured, and missing traces are named") {
  ReportFixture f("profile_alone.sqlite");
  f.campaign("c1", "alone");
  for (int r = 1; r < 3; ++r) f.trial(bucket_trial(true, "4", r, 950, 105));  // the first repeat never ran
  const std::string md = render_latest(f, false, "alone").markdown;
  CHECK(contains(md, "No unprofiled study ran a profiled configuration with the same parameters"));
  CHECK(contains(md, "| 103.00 / 105.00 / 107.00 | 1.019 | not kept |\n"));
  CHECK(contains(md, "- Traces are kept in the database for each profiled configuration's first repeat;"));
  CHECK_FALSE(contains(md, "## Training"));
}

TEST_CASE("profile: the top operators per configuration, averaged over ranks and repeats, and why none were recorded") {
  ReportFixture f("profile_operators.sqlite");
  f.campaign("c1", "operators");
  auto op = [](const char* name, double calls, double self_ms, double total_ms) {
    return nlohmann::json{{"name", name}, {"calls", calls}, {"self_ms", self_ms}, {"total_ms", total_ms}};
  };
  for (int r = 0; r < 2; ++r) {
    FixtureTrial t = bucket_trial(true, "1", r, 950, 105);
    auto& ranks = t.result["profile"]["ranks"];
    // Rank 1's mm is 10 ms slower; its top list lacks aten::add_, which counts only where present.
    ranks[0]["operators"] = {
        {"step", 4},
        {"step_ms", 140.0 + r},
        {"recorded_ms", 100.0},
        {"operators", 40},
        {"top", {op("aten::mm", 40, 60, 61), op("aten::addmm", 8, 20, 24), op("aten::add_", 30, 5, 5)}}};
    ranks[1]["operators"] = {
        {"step", 4},
        {"step_ms", 150.0 + r},
        {"recorded_ms", 110.0},
        {"operators", 40},
        {"top",
         {op("aten::mm", 40, 70, 71), op("aten::addmm", 8, 20, 24), op("torch::autograd::CppNode<mt::A|B>", 2, 1, 1)}}};
    f.trial(t);
    FixtureTrial cold = bucket_trial(true, "25", r, 950, 105);
    for (auto& rank : cold.result["profile"]["ranks"])
      rank["operators"] = {{"skipped", "no warmup step to record them in"}};
    f.trial(cold);
  }
  const std::string md = section(render_latest(f).markdown, "Where a step's time goes");
  REQUIRE(contains(md, "### Top operators (LibTorch's profiler)"));
  CHECK(contains(md,
                 "| ddp | 2 | buckets_profiled bucket_cap_mb=1 | 105.00 of 145.50 | `aten::mm` | 40 | 65.00 | 66.00 | "
                 "61.9 % |\n"));
  CHECK(contains(md, "|   |   |   |   | `aten::addmm` | 8 | 20.00 | 24.00 | 19.0 % |\n"));
  CHECK(contains(md, "|   |   |   |   | `aten::add_` | 30 | 5.00 | 5.00 | 4.8 % |\n"));
  CHECK(contains(md, "| `torch::autograd::CppNode<mt::A\\|B>` |"));  // a name cannot break the table
  CHECK(contains(md,
                 "- No operators recorded for buckets_profiled bucket_cap_mb=25: no warmup step to record them in.\n"));
}

TEST_CASE("profile: results from before the operator profile render no operator table") {
  ReportFixture f("profile_no_operators.sqlite");
  bucket_campaign(f);
  CHECK_FALSE(contains(render_latest(f).markdown, "Top operators"));
}
