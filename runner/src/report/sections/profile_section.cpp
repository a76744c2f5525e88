#include "report/sections/profile_section.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "report/sections/operator_table.h"
#include "report/render/series_names.h"
#include "report/model/step_profile.h"

namespace mt {
namespace {

constexpr const char* kCollectivesPrefix = "collectives_per_step.";
// The one field of `collectives_per_step` that counts rounds of gradient synchronisation, not calls.
constexpr const char* kSyncRounds = "sync_rounds";

// How the chart names a configuration: the study too when several were profiled.
std::string ms(const Summary& s) { return mean_std_cell(s, 2); }

// A fraction as a percentage, for a column titled "… %".
std::string percent_cell(const Summary& fraction) {
  Summary p = fraction;
  p.mean *= 100;
  p.std *= 100;
  return mean_std_cell(p, 1);
}

// "all_reduce 21, broadcast 1": the collectives the engine counted per optimizer step, by kind, in
// name order; whichever kinds the results carry, none named here.
std::string collectives_cell(const Group& g) {
  std::string out;
  for (const auto& kind : metric_names_under({&g}, kCollectivesPrefix)) {
    if (kind == kSyncRounds) continue;
    auto values = g.sample(kCollectivesPrefix + kind).values;
    if (values.empty() || summarize(values).mean == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", kind, constant_or_mean(values));
  }
  return out.empty() ? "-" : out;
}

std::string across_ranks_cell(const StepProfileRow& r) {
  if (r.step_p50_ms.n == 0) return "-";
  return fmt::format("{} / {} / {}", fixed(r.step_min_ms.mean, 2), fixed(r.step_p50_ms.mean, 2),
                     fixed(r.step_max_ms.mean, 2));
}

std::string traces_cell(const StepProfileRow& r, const std::string& report_dir) {
  if (!r.traced) return "not kept";
  if (report_dir.empty()) return fmt::format("{} (saved with `-o`)", r.traces.size());
  std::string out;
  for (size_t i = 0; i < r.traces.size(); ++i) {
    out += fmt::format("{}[rank {}]({}/{})", i ? ", " : "", i, report_dir, trace_path(*r.traced, r.traces[i]));
  }
  return out +
         fmt::format(" (trial {} attempt {})", short_id(r.traced->identity), r.traced->succeeded_attempt.value_or(0));
}

Plot step_chart(const std::vector<StepProfileRow>& rows) {
  std::vector<const Group*> groups;
  for (const auto& r : rows) groups.push_back(r.group);
  const auto names = distinct_names(groups, true);  // what tells each configuration apart, nothing more
  ChartSpec c{"Where a step's time goes (profiled runs; mean over ranks and repeats)",
              "configuration",
              "time per step (ms)",
              {},
              {}};
  ChartSeries data{"data", {}, {}, false, -1}, compute{"forward-backward", {}, {}, false, -1},
      hidden{"communication hidden under computation", {}, {}, false, -1},
      exposed{"exposed communication", {}, {}, false, -1}, optimizer{"optimizer", {}, {}, false, -1},
      other{"other (step − phases)", {}, {}, false, -1};
  bool any_other = false;
  for (const auto& r : rows) {
    if (r.step_ms.n == 0) continue;
    const StepParts p = r.parts();
    c.categories.push_back(names.at(r.group));
    data.values.push_back(p.data);
    compute.values.push_back(p.compute);
    hidden.values.push_back(p.hidden);
    exposed.values.push_back(p.exposed);
    optimizer.values.push_back(p.optimizer);
    other.values.push_back(p.other > 0 ? std::optional<double>(p.other) : std::nullopt);
    any_other = any_other || p.other > 0;
  }
  c.series = {data, compute, hidden, exposed, optimizer};
  if (any_other) c.series.push_back(other);
  std::string svg = bar_chart_svg(c, true);
  return {"step_profile.svg", "Where a step's time goes", std::move(c), std::move(svg)};
}

std::string time_table(const std::vector<StepProfileRow>& rows, const ProvenanceAnalysis& provenance) {
  std::vector<Column> columns = {{"strategy"},
                                 {"ranks", Align::Right},
                                 {"configuration"},
                                 {"step ms", Align::Right},
                                 {"data ms", Align::Right},
                                 {"fwd+bwd ms", Align::Right},
                                 {"optimizer ms", Align::Right},
                                 {"communication ms", Align::Right},
                                 {"exposed ms", Align::Right},
                                 {"overlap %", Align::Right},
                                 {"n", Align::Right}};
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  for (const auto& r : rows) {
    const Group& g = *r.group;
    std::vector<std::string> row = {
        g.strategy,       std::to_string(g.ranks),          g.label(),          ms(r.step_ms),
        ms(r.data_ms),    ms(r.forward_backward_ms),        ms(r.optimizer_ms), ms(r.communication_ms),
        ms(r.exposed_ms), percent_cell(r.overlap_fraction), g.n_text()};
    if (provenance.mixed()) row.push_back(provenance.stack_cell(g));
    table.add_row(std::move(row));
  }
  return table.render();
}

std::string pace_table(const std::vector<StepProfileRow>& rows, const std::string& report_dir) {
  MarkdownTable table({{"strategy"},
                       {"ranks", Align::Right},
                       {"configuration"},
                       {"collectives/step"},
                       {"in trace/step", Align::Right},
                       {"buckets", Align::Right},
                       {"largest bucket MiB", Align::Right},
                       {"step ms min / p50 / max over ranks", Align::Right},
                       {"straggler ratio", Align::Right},
                       {"traces"}});
  for (const auto& r : rows) {
    const Group& g = *r.group;
    table.add_row({g.strategy, std::to_string(g.ranks), g.label(), collectives_cell(g),
                   r.collectives.n ? fixed(r.collectives.mean, 1) : "-",
                   r.buckets.n ? constant_or_mean(g.sample("buckets.count").values) : "-",
                   r.largest_bucket_mib ? fixed(*r.largest_bucket_mib, 2) : "-", across_ranks_cell(r),
                   r.straggler_ratio.n ? fixed(r.straggler_ratio.mean, 3) : "-", traces_cell(r, report_dir)});
  }
  return table.render();
}

std::string study_list(const std::vector<StepProfileRow>& rows) {
  std::vector<std::string> studies;
  for (const auto& r : rows) {
    if (std::find(studies.begin(), studies.end(), r.group->study) == studies.end()) studies.push_back(r.group->study);
  }
  std::string out;
  for (size_t i = 0; i < studies.size(); ++i) out += (i ? ", " : "") + code(studies[i]);
  return out;
}

}  // namespace

std::string trace_path(const ReportTrial& trial, const std::string& stored_name) {
  const auto slash = stored_name.rfind('/');
  return fmt::format("traces/{}/{}", short_id(trial.identity),
                     slash == std::string::npos ? stored_name : stored_name.substr(slash + 1));
}

ProfileSection render_profile_section(const std::vector<const Group*>& profiled, const ProvenanceAnalysis& provenance,
                                      const std::string& report_dir, bool link_traces) {
  ProfileSection out;
  // Where the traces are linked from: nowhere when they will not be written.
  const std::string trace_dir = link_traces ? report_dir : "";
  if (profiled.empty()) return out;
  std::vector<StepProfileRow> rows = step_profile_rows(profiled);
  std::string& md = out.markdown;
  md = fmt::format(
      "## Where a step's time goes\n\n"
      "From the profiled studies ({}: `profile: true`, each trial run as `mtengine train --profile`): every rank "
      "records its steps, their phases, each block's forward and backward and every collective as spans, and per "
      "measured step the engine takes the union of the communication intervals and of the computation intervals "
      "(the forward-backward and optimizer phases, less the time the rank waited for a collective). Exposed "
      "communication is the part of the communication that no computation covered; overlap is the hidden part "
      "over all of it. Each figure is the mean over ranks of every rank's per-step mean, then mean ± std over "
      "repeats. Profiled timings carry the profiler's own cost (see [Profiler overhead](#profiler-overhead)); "
      "throughput and memory elsewhere in this report come from the unprofiled studies.\n\n",
      study_list(rows));
  if (!report_dir.empty()) {
    Plot chart = step_chart(rows);
    if (!chart.chart.categories.empty()) {
      md += fmt::format("![{}]({}/{})\n\n", chart.caption, report_dir, chart.file);
      out.plots.push_back(std::move(chart));
    }
  }
  md +=
      "The bar stacks data, forward-backward with no communication under it, the communication hidden under "
      "computation, exposed communication and the optimizer: together data + forward-backward + optimizer "
      "(+ whatever else the step spent). Hidden and exposed communication are drawn inside forward-backward, where "
      "DDP and FSDP run their collectives; what exceeds it, inside the optimizer phase, where ZeRO does.\n\n";
  md += time_table(rows, provenance) + "\n";
  md +=
      "Collectives per optimizer step as the engine counts them by kind, and the collective spans per step in the "
      "trace; buckets and the largest bucket are the gradient buckets the strategy reduces (DDP's buckets; FSDP's "
      "units, one reduce-scatter each). Step ms across ranks: the fastest, median and slowest rank's mean step "
      "(mean over repeats); straggler ratio = slowest ÷ median.\n\n";
  md += pace_table(rows, trace_dir) + "\n";
  constexpr std::size_t kOperatorsShown = 5;
  const std::string operators = render_operator_table(profiled, kOperatorsShown);
  std::string notes;
  if (report_dir.empty()) {
    notes += "- The chart and the trace files are written beside the report when it is saved with `-o FILE`.\n";
  } else if (trace_dir.empty()) {
    notes +=
        "- The trace files are written beside the page only when it is saved with `-o FILE.html`: on standard output "
        "it has no folder for them, so none is linked.\n";
  } else {
    notes +=
        "- Traces are Chrome trace JSON: open them in Perfetto (ui.perfetto.dev) or chrome://tracing; tracks: "
        "steps, compute, communication.\n";
  }
  for (const auto& r : rows) {
    if (!r.traced) {
      notes +=
          "- Traces are kept in the database for each profiled configuration's first repeat; \"not kept\" means "
          "that repeat did not succeed or left none.\n";
      break;
    }
  }
  for (const auto& r : rows) {
    if (!r.traced) continue;
    for (const auto& name : r.traces)
      out.files.push_back({r.traced->succeeded_attempt_id, name, trace_path(*r.traced, name)});
  }
  if (trace_dir.empty()) {
    out.traces_left_out = out.files.size();
    out.files.clear();
  }
  md += "\n" + notes + "\n";
  md += operators;
  return out;
}

}  // namespace mt
