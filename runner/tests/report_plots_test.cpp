// The report's plots from a campaign of two studies: every series named by its study, nothing
// drawn that was not measured, and a plot with nothing to show left out with the reason.
#include <doctest/doctest.h>

#include <algorithm>

#include "report/model/groups.h"
#include "report/report.h"
#include "report/render/series_names.h"
#include "report/render/svg_chart.h"
#include "report/render/timeline_chart.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

namespace {

const Plot* find_plot(const RenderedReport& report, const std::string& file) {
  for (const auto& p : report.plots) {
    if (p.file == file) return &p;
  }
  return nullptr;
}

std::vector<std::string> series_names(const Plot& plot) {
  std::vector<std::string> names;
  for (const auto& s : plot.chart.series) {
    if (!s.name.empty()) names.push_back(s.name);
  }
  return names;
}

const ChartSeries& series(const Plot& plot, const std::string& name) {
  auto it = std::find_if(plot.chart.series.begin(), plot.chart.series.end(),
                         [&](const ChartSeries& s) { return s.name == name; });
  REQUIRE(it != plot.chart.series.end());
  return *it;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("plots: two studies of one strategy are two series, each named by its study") {
  ReportFixture f("plots_two_studies.sqlite");
  engine_and_peer_campaign(f);
  RenderedReport report = render_latest(f, false, "two");

  const Plot* tokens = find_plot(report, "tokens_per_sec.svg");
  REQUIRE(tokens);
  CHECK(tokens->chart.categories == Strings{"1", "2"});
  CHECK(series_names(*tokens) == Strings{"engine ddp", "peer ddp"});
  CHECK(*series(*tokens, "engine ddp").values[0] == doctest::Approx(1200));
  CHECK(*series(*tokens, "engine ddp").values[1] == doctest::Approx(2400));
  CHECK(*series(*tokens, "peer ddp").values[0] == doctest::Approx(1000));
  CHECK(*series(*tokens, "peer ddp").values[1] == doctest::Approx(2000));
  CHECK(contains(tokens->svg, ">engine ddp</text>"));
  CHECK(contains(tokens->svg, ">peer ddp</text>"));

  // Only the engine recorded peak RSS: the peer is left out, and the report says so.
  const Plot* memory = find_plot(report, "peak_memory.svg");
  REQUIRE(memory);
  // Named among what the chart shows: the engine's study alone, so its name is left out.
  CHECK(memory->chart.categories == Strings{"ddp ×1", "ddp ×2"});
  CHECK(series_names(*memory) == Strings{"model state (parameters, gradients, optimizer)",
                                         "runtime, activations and caches (peak RSS − model state)"});
  CHECK(contains(report.markdown, "- Peak memory leaves out peer ddp ×1, peer ddp ×2: no peak RSS recorded.\n"));

  // Model state and the step breakdown draw the engine's configurations only: the peer measured neither.
  const Plot* state = find_plot(report, "model_state.svg");
  REQUIRE(state);
  CHECK(state->chart.categories == Strings{"ddp ×1", "ddp ×2"});
  CHECK(series_names(*state) == Strings{"parameters", "gradients (peak)", "optimizer state"});
  const Plot* breakdown = find_plot(report, "step_breakdown.svg");
  REQUIRE(breakdown);
  CHECK(breakdown->chart.categories == Strings{"ddp ×1", "ddp ×2"});
  CHECK(series_names(*breakdown) ==
        Strings{"data", "forward+backward (collectives inside it)", "optimizer", "other (step − parts)"});
  CHECK(contains(report.markdown,
                 "- The step breakdown leaves out peer ddp ×1, peer ddp ×2: no data, "
                 "forward-backward and optimizer times recorded.\n"));
  CHECK(contains(report.markdown, "![Step time breakdown](two/step_breakdown.svg)"));
}

TEST_CASE("plots: one study keeps labels short; ideal scaling is dashed where ranks bring their own cores") {
  ReportFixture f("plots_one_study.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) f.trial(train_trial("only", "ddp", ranks, r, 1000 * ranks, 40, 500));
  }
  RenderedReport report = render_latest(f, false, "one");
  const Plot* tokens = find_plot(report, "tokens_per_sec.svg");
  REQUIRE(tokens);
  REQUIRE(tokens->chart.series.size() == 2);
  CHECK(tokens->chart.series[0].name == "ddp");
  CHECK(tokens->chart.series[1].dashed);  // 2 threads a rank on 16 cores: two ranks use twice the cores
  CHECK(*tokens->chart.series[1].values[1] == doctest::Approx(2000));
  CHECK(tokens->chart.title == "Throughput vs ranks (mean ± std; dashed: ideal scaling)");
}

TEST_CASE("plots: a plot without data is left out, never drawn empty, and the report says why") {
  ReportFixture f("plots_peer_only.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) f.trial(peer_trial("peer", ranks, r, 1000 * ranks, 48));
  }
  RenderedReport report = render_latest(f, false, "peer");
  REQUIRE(report.plots.size() == 1);
  CHECK(report.plots[0].file == "tokens_per_sec.svg");
  CHECK(contains(report.markdown, "- Peak memory is not plotted: no configuration recorded its peak RSS.\n"));
  CHECK(contains(report.markdown,
                 "- Model state is not plotted: no configuration reported its parameter, gradient "
                 "and optimizer-state bytes.\n"));
  CHECK(contains(report.markdown,
                 "- The step breakdown is not plotted: no configuration recorded its data, "
                 "forward-backward and optimizer times.\n"));
  CHECK_FALSE(contains(report.markdown, "peak_memory.svg"));
}

TEST_CASE("plots: series are named by the axes that tell them apart, leaving out axes zipped to those") {
  // Three configurations as ddp_vs_pytorch runs them: model size zipped with depth, precision zipped
  // with the step count. Both precisions at d_model 256 must read differently.
  Group a, b, c;
  a.study = b.study = c.study = "mtengine";
  a.strategy = b.strategy = c.strategy = "ddp";
  a.config = "d_model=256 n_layers=4 precision=fp32 steps=20";
  b.config = "d_model=256 n_layers=4 precision=bf16 steps=10";
  c.config = "d_model=512 n_layers=6 precision=fp32 steps=20";
  c.ranks = 2;
  const auto names = distinct_names({&a, &b, &c}, false);
  CHECK(names.at(&a) == "ddp d_model=256 precision=fp32");
  CHECK(names.at(&b) == "ddp d_model=256 precision=bf16");
  CHECK(names.at(&c) == "ddp d_model=512 precision=fp32");
  const auto with_ranks = distinct_names({&a, &c}, true, false);
  CHECK(with_ranks.at(&a) == "d_model=256 ×1");
  CHECK(with_ranks.at(&c) == "d_model=512 ×2");
  // A second study is named too; a group with nothing else to tell it apart keeps its study.
  Group peer = a;
  peer.study = "pytorch_eager";
  CHECK(distinct_names({&a, &peer}, false).at(&peer) == "pytorch_eager ddp");
  CHECK(distinct_names({&a}, false, false).at(&a) == "mtengine");
  // The configuration alone, as comparisons between studies name it.
  const auto configs = distinct_configs({&a, &b, &c, &peer});
  CHECK(configs.at(&b) == "d_model=256 precision=bf16");
  CHECK(configs.at(&peer) == configs.at(&a));
}

TEST_CASE("plots: at one rank count throughput is a bar per configuration, in numeric order") {
  ReportFixture f("plots_one_rank_count.sqlite");
  f.campaign("c1");
  for (const char* cap : {"1", "100", "25", "4"}) {
    for (int r = 0; r < 3; ++r) {
      FixtureTrial t = train_trial("buckets", "ddp", 2, r, 1000 + std::stod(cap), 40, 500);
      t.params["bucket_cap_mb"] = cap;
      t.axes.push_back("bucket_cap_mb");
      f.trial(t);
    }
  }
  RenderedReport report = render_latest(f, false, "buckets");
  const Plot* tokens = find_plot(report, "tokens_per_sec.svg");
  REQUIRE(tokens);
  CHECK(tokens->chart.categories ==
        Strings{"ddp bucket_cap_mb=1", "ddp bucket_cap_mb=4", "ddp bucket_cap_mb=25", "ddp bucket_cap_mb=100"});
  CHECK(tokens->chart.title == "Throughput per configuration at 2 ranks (mean ± std)");
  CHECK_FALSE(contains(tokens->svg, "<polyline"));  // bars, not a line through one column
  CHECK(contains(tokens->svg, "<rect"));
  // The training table sorts the same way, and names rows without repeating the one study.
  const std::string& all = report.markdown;
  const size_t training = all.find("## Training\n");
  REQUIRE(training != std::string::npos);
  const std::string md = all.substr(training, all.find("\n## ", training + 1) - training);
  CHECK(md.find("| bucket_cap_mb=4 |") < md.find("| bucket_cap_mb=25 |"));
  CHECK(md.find("| bucket_cap_mb=25 |") < md.find("| bucket_cap_mb=100 |"));
  CHECK_FALSE(contains(md, "| buckets bucket_cap_mb=4 |"));
  // No DDP comparison is possible (every row is DDP): those columns are left out, with their notes.
  CHECK_FALSE(contains(md, "memory saving vs DDP"));
  CHECK_FALSE(contains(md, "step time vs DDP"));
}

TEST_CASE("plots: a step-time series per configuration with its warmup shaded") {
  ReportFixture f("plots_step_series.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 2; ++r) {
    for (int ranks : {1, 2}) f.trial(train_trial("only", "ddp", ranks, r, 1000 * ranks, 40, 500));
  }
  RenderedReport report = render_latest(f, false, "series");
  const Plot* steps = find_plot(report, "step_times.svg");
  REQUIRE(steps);
  CHECK(steps->chart.categories.size() == 32);  // 2 warmup + 30 measured
  REQUIRE(steps->chart.shade);
  CHECK(steps->chart.shade->first == 0);
  CHECK(steps->chart.shade->last == 1);
  CHECK(series_names(*steps) == Strings{"ddp ×1", "ddp ×2"});
  CHECK(contains(steps->svg, ">warmup</text>"));
  CHECK(contains(report.markdown, "![Step time at every step](series/step_times.svg)"));
}

TEST_CASE("svg chart: the legend wraps below the plot and no text passes the right edge") {
  ChartSpec c{"Title", "x", "y (unit)", {"a", "b"}, {}};
  for (int i = 0; i < 9; ++i)
    c.series.push_back({"a rather long series name number " + std::to_string(i), {1.0 + i, 2.0 + i}, {}, false, i});
  const std::string svg = line_chart_svg(c);
  // Every left-anchored text (legend entries, the title) ends inside the canvas at about 7 px a character.
  size_t at = 0, texts = 0;
  while ((at = svg.find("<text ", at)) != std::string::npos) {
    const size_t close = svg.find('>', at);
    const std::string tag = svg.substr(at, close - at);
    const std::string text = svg.substr(close + 1, svg.find("</text>", close) - close - 1);
    at = close;
    if (tag.find("text-anchor") != std::string::npos) continue;
    const double x = std::stod(tag.substr(tag.find("x=\"") + 3));
    CHECK(x + 7.0 * double(text.size()) <= 720);
    ++texts;
  }
  CHECK(texts > 9);
  // Nine names do not fit one row: the canvas grew to hold several.
  const double height = std::stod(svg.substr(svg.find("height=\"") + 8));
  CHECK(height > 420);
}

TEST_CASE("svg chart: values spanning decades get a logarithmic axis; bars carry error bars") {
  ChartSpec c{"Title", "x", "throughput (tokens/s)", {"a", "b"}, {}};
  c.series.push_back({"s", {80.0, 4000.0}, {5.0, 100.0}, false, 0});
  CHECK(spans_decades(c));
  c.log_y = true;
  const std::string line = line_chart_svg(c);
  CHECK(contains(line, "throughput (tokens/s) (log scale)"));
  CHECK(contains(line, ">10</text>"));
  CHECK(contains(line, ">10000</text>"));
  ChartSpec flat{"Title", "x", "y", {"a", "b"}, {{"s", {100.0, 120.0}, {5.0, 6.0}, false, 0}}};
  CHECK_FALSE(spans_decades(flat));
  const std::string bars = bar_chart_svg(flat, false);
  CHECK(contains(bars, "<path d=\"M"));  // the whiskers
}

TEST_CASE("natural order compares numbers as numbers") {
  CHECK(natural_less("bucket_cap_mb=4", "bucket_cap_mb=25"));
  CHECK_FALSE(natural_less("bucket_cap_mb=100", "bucket_cap_mb=25"));
  CHECK(natural_less("lr=0.5", "lr=1.25"));
  CHECK(natural_less("a", "b"));
  CHECK(natural_less("x=1", "x=1 y=2"));
  CHECK_FALSE(natural_less("x=1", "x=1"));
}

TEST_CASE("timeline chart: a row per chain, a box per stage as wide as its time, coloured by how it ended") {
  TimelineSpec spec{"Chains", "seconds", {"succeeded", "crashed"}, {}};
  spec.rows.push_back({"exact_resume ddp",
                       {{2, "continuous", "1 continuous: succeeded", 0},
                        {2, "killed", "2 killed: crashed on rank 1", 1},
                        {0.01, "resumed", "3 resumed: succeeded", 0}}});
  const std::string svg = timeline_svg(spec);
  CHECK(contains(svg, ">exact_resume ddp</text>"));
  CHECK(contains(svg, "<title>2 killed: crashed on rank 1</title>"));
  CHECK(contains(svg, "fill=\"#d62728\""));  // the crashed stage
  CHECK(contains(svg, ">killed</text>"));
  CHECK_FALSE(contains(svg, ">resumed</text>"));  // too short a box for its label; its tooltip says it
  CHECK(contains(svg, "<title>3 resumed: succeeded</title>"));
  CHECK(contains(svg, ">crashed</text>"));  // the legend
}

TEST_CASE("svg chart: each line has a marker of its own shape, so lines lying on one another both show") {
  ChartSpec c{"Title", "x", "y", {"a", "b"}, {}};
  for (int i = 0; i < 4; ++i) c.series.push_back({"s" + std::to_string(i), {1.0, 2.0}, {}, false, i});
  const std::string svg = line_chart_svg(c);
  auto count = [&](const std::string& part) {
    size_t n = 0;
    for (size_t at = svg.find(part); at != std::string::npos; at = svg.find(part, at + 1)) ++n;
    return n;
  };
  CHECK(count("<circle ") == 3);      // two points and the legend entry of the first series
  CHECK(count("<rect x=") == 3);      // squares: the second series
  CHECK(count(" Z\" fill=\"") == 6);  // triangles and diamonds: the third and fourth
}
