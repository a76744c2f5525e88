// The report's plots from a campaign of two studies: every series named by its study, nothing
// drawn that was not measured, and a plot with nothing to show left out with the reason.
#include <doctest/doctest.h>

#include <algorithm>

#include "report/report.h"
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
  CHECK(series_names(*memory) == Strings{"engine ddp"});
  CHECK(contains(report.markdown, "- Peak memory leaves out peer ddp: no peak RSS recorded.\n"));

  // Model state and the step breakdown draw the engine's configurations only: the peer measured neither.
  const Plot* state = find_plot(report, "model_state.svg");
  REQUIRE(state);
  CHECK(state->chart.categories == Strings{"engine ddp ×1", "engine ddp ×2"});
  CHECK(series_names(*state) == Strings{"parameters", "gradients (peak)", "optimizer state"});
  const Plot* breakdown = find_plot(report, "step_breakdown.svg");
  REQUIRE(breakdown);
  CHECK(breakdown->chart.categories == Strings{"engine ddp ×1", "engine ddp ×2"});
  CHECK(series_names(*breakdown) == Strings{"data", "forward+backward", "optimizer", "other (step − parts)"});
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
