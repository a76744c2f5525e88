#include "report/sections/conditions_section.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/model/campaign_drift.h"
#include "json_fields.h"
#include "report/model/measurement_window.h"
#include "report/sections/training_tables.h"

namespace mt {
namespace {

bool any_recorded(const std::vector<const Group*>& groups, const std::string& metric) {
  for (const Group* g : groups) {
    if (!g->sample(metric).values.empty()) return true;
  }
  return false;
}

std::string or_not_recorded(const std::string& text) { return text.empty() ? kNotRecorded : text; }

std::string steps_cell(const MeasurementWindow& w) {
  if (!w.measured_steps) return kNotRecorded;
  std::string steps = std::to_string(*w.measured_steps);
  return w.short_window() ? steps + " " + kShortWindowMark : steps;
}

// "-4.1 % ⚠warming", "+0.4 %"; "-" where too few repeats recorded enough steps to judge.
std::string drift_cell(const MeasurementWindow& w) {
  if (!w.drift) return "-";
  const std::string figure = signed_percent(w.drift->mean);
  return w.drift->warming() ? figure + " " + kWarmingMark : w.drift->slowing() ? figure + " " + kSlowingMark : figure;
}

// Which library ran the dense layers' fp32 GEMMs (the result's environment.gemm_backends, one entry
// per product shape): "mkl 9, onednn 6 of 15 shapes", "onednn (pinned)", with ", measured on a busy
// machine" where the choice came from speeds the engine did not trust enough to keep as quiet
// (", by an earlier launch" where a stand-in kept from an earlier busy launch decided); "" when not
// recorded. The group's trials agree unless their measurements did; each distinct answer is listed
// once.
std::string gemm_backends_cell(const Group& g) {
  std::set<std::string> seen;
  std::string out;
  for (const ReportTrial* t : g.succeeded) {
    const auto env = trial_environment(*t);
    const auto it = env.find("gemm_backends");
    if (it == env.end() || !it->is_array() || it->empty()) continue;
    std::map<std::string, int> count;
    bool pinned = true, busy = false, earlier = false;
    for (const auto& shape : *it) {
      if (!shape.is_object()) continue;
      ++count[text_field(shape, "backend", "?")];
      pinned = pinned && text_field(shape, "chosen_by") == "--gemm-backend";
      busy = busy || shape.contains("measured_on_busy_machine");
      earlier = earlier || flag_field(shape, "speeds_from_earlier_launch");
    }
    std::string text;
    if (pinned && count.size() == 1) {
      text = count.begin()->first + " (pinned)";
    } else {
      for (const auto& [backend, n] : count) text += (text.empty() ? "" : ", ") + fmt::format("{} {}", backend, n);
      text += fmt::format(" of {} shapes", it->size());
      if (busy) text += earlier ? ", measured on a busy machine, by an earlier launch" : ", measured on a busy machine";
    }
    if (seen.insert(text).second) out += (out.empty() ? "" : " / ") + text;
  }
  return out;
}

}  // namespace

std::string group_environment_text(const Group& g, const std::string& key) {
  std::set<std::string> seen;
  std::string out;
  for (const ReportTrial* t : g.succeeded) {
    std::string text = environment_text(trial_environment(*t), key);
    if (!text.empty() && seen.insert(text).second) out += (out.empty() ? "" : " / ") + text;
  }
  return out;
}

std::string render_conditions_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  const bool blas_threads = any_recorded(groups, "environment.blas_threads");
  const bool blas_probe = any_recorded(groups, "environment.blas_gflops_per_thread");
  bool gemm_backends = false;
  for (const Group* g : groups) gemm_backends = gemm_backends || !gemm_backends_cell(*g).empty();
  // Each row's window once: it reads every trial's per-step series.
  const auto rows = training_rows(groups);
  std::vector<MeasurementWindow> windows;
  for (const auto& r : rows) windows.push_back(measurement_window(*r.group));
  const bool drift =
      std::any_of(windows.begin(), windows.end(), [](const MeasurementWindow& w) { return w.drift.has_value(); });
  std::vector<Column> columns = {{"strategy"},
                                 {"ranks", Align::Right},
                                 {"configuration"},
                                 {"ranks/node × threads/rank vs cores"},
                                 {"environment values"}};
  if (blas_threads) columns.push_back({"BLAS threads", Align::Right});
  if (blas_probe) columns.push_back({"BLAS GFLOP/s per thread", Align::Right});
  if (gemm_backends) columns.push_back({"dense-layer GEMMs"});
  for (const char* title : {"measured steps", "per-step CV", "trial mean ±"}) columns.push_back({title, Align::Right});
  if (drift) columns.push_back({"step drift", Align::Right});
  columns.push_back({"n", Align::Right});
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TrainingRow& r = rows[i];
    const Group& g = *r.group;
    const MeasurementWindow& w = windows[i];
    std::vector<std::string> row = {g.strategy, ranks_cell(r), g.label(), core_use_cell(r.cores),
                                    or_not_recorded(group_environment_text(g, "env_vars"))};
    if (blas_threads) row.push_back(or_not_recorded(group_environment_text(g, "blas_threads")));
    if (blas_probe) {
      // A probe of the machine, not a result: its spread matters, the repeat count does not.
      Summary probe = summarize(g.sample("environment.blas_gflops_per_thread").values);
      row.push_back(probe.n == 0   ? kNotRecorded
                    : probe.n == 1 ? fixed(probe.mean, 1)
                                   : fixed(probe.mean, 1) + " ± " + fixed(probe.std, 1));
    }
    if (gemm_backends) row.push_back(or_not_recorded(gemm_backends_cell(g)));
    row.push_back(steps_cell(w));
    row.push_back(w.step_cv ? percent(*w.step_cv) : kNotRecorded);
    auto error = w.mean_relative_error();
    row.push_back(error ? percent(*error) : kNotRecorded);
    if (drift) row.push_back(drift_cell(w));
    row.push_back(g.n_text());
    if (provenance.mixed()) row.push_back(provenance.stack_cell(g));
    table.add_row(std::move(row));
  }
  std::string out =
      "## Measurement conditions\n\n"
      "How each configuration used the machine and how long it measured (the rules: "
      "`docs/measurement.md`).\n\n" +
      table.render();
  out += fmt::format(
      "\n- ranks/node × threads/rank vs cores: the most ranks on one node times each rank's threads, against "
      "the node's logical CPUs. {}\n"
      "- environment values: the launch-relevant variables that were set (OMP, MKL, OpenBLAS, …), as the "
      "program reports them.\n{}"
      "- measured steps: steps timed per trial, warmup excluded; fewer than {} is marked {}: a mean over a "
      "handful of steps moves with every hiccup.\n"
      "- per-step CV: how much the step time varies within a trial (the slowest rank at each measured step), "
      "averaged over the repeats; trial mean ± = per-step CV ÷ √steps, about how far one trial's mean can move "
      "by chance.\n{}\n",
      kOversubscribedMark + std::string(" marks more than the node has: the ranks took turns on its cores."),
      gemm_backends ? "- dense-layer GEMMs: the library that ran each product shape of the linear layers and LM head "
                      "(measured faster on this machine, or pinned by `--gemm-backend`; per shape with both speeds "
                      "in the results' `environment.gemm_backends`).\n"
                    : "",
      kMinMeasuredSteps, kShortWindowMark,
      drift ? fmt::format("- step drift: the last half of a trial's measured steps against its first quarter (mean "
                          "step time, − 1), averaged over the repeats: negative, the steps still got faster; "
                          "positive, slower. Judged from {} repeats of {} measured steps up; where the repeats agree "
                          "(one-sample t-test p < 0.05) and it is {} or more, {} (warm-up was not over: the mean holds "
                          "some of it) or {} (something grew over the run: the mean depends on how long it "
                          "measured).\n",
                          kMinDriftRepeats, kMinDriftSteps, percent(kDriftThreshold, 0), kWarmingMark, kSlowingMark)
            : "");
  const auto drifts = campaign_drifts(groups);
  for (const auto& d : drifts) {
    out += fmt::format("**Drift over the campaign**: {}{}.\n\n", campaign_drift_text(d, drifts.size() > 1),
                       d.marked() ? std::string(" ") + kCampaignDriftMark : "");
  }
  if (!drifts.empty()) {
    out += fmt::format(
        "A line through every configuration's step times in the order their attempts started shows what they all "
        "shared (the machine, most often); marked {} where its slope is beyond noise (p < 0.05) and it moved {} or "
        "more. Interleaved or shuffled order spreads such a drift over every configuration, so their ratios hold; "
        "their absolute figures depend on when they ran, and their spreads are wider for it.\n\n",
        kCampaignDriftMark, percent(kCampaignDriftThreshold, 0));
  }
  return out;
}

}  // namespace mt
