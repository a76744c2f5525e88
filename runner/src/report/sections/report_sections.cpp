#include "report/sections/report_sections.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/comm_plots.h"
#include "report/sections/comm_table.h"
#include "report/sections/conditions_section.h"
#include "report/sections/environment_section.h"
#include "report/sections/failures_section.h"
#include "report/sections/fault_tolerance_section.h"
#include "report/sections/machine_line.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/sections/memory_section.h"
#include "report/sections/metric_sections.h"
#include "report/sections/moe_section.h"
#include "report/sections/parallelism_section.h"
#include "report/sections/profile_section.h"
#include "report/sections/profiler_overhead_section.h"
#include "report/sections/references_section.h"
#include "report/sections/study_comparison.h"
#include "report/sections/summary_section.h"
#include "report/sections/training_tables.h"
#include "report/sections/utilisation_section.h"

namespace mt {
namespace {

bool always(const ReportModel&) { return true; }
bool has_training(const ReportModel& m) { return !m.training.empty(); }

void header(const ReportModel& m, RenderedReport& r) {
  const ReportData& data = *m.data;
  const Campaign& last = data.campaigns.back();
  std::string& out = r.markdown;
  out += fmt::format("# {} report\n\n", last.experiment);
  if (data.campaigns.size() == 1) {
    out += fmt::format("Campaign {} of experiment {} ({}), source revision {}, created {}.\n\n", code(last.id),
                       code(last.experiment), code(last.experiment_file), code(last.source_revision), last.created_at);
  } else {
    out += fmt::format("{} campaigns of experiment {}; repeats of the same parameters are pooled across them.\n\n",
                       data.campaigns.size(), code(last.experiment));
    MarkdownTable table(
        {{"campaign"}, {"experiment file"}, {"source revision"}, {"created"}, {"trials", Align::Right}});
    for (const auto& c : data.campaigns) {
      table.add_row(
          {code(c.id), code(c.experiment_file), code(c.source_revision), c.created_at, std::to_string(c.trial_count)});
    }
    out += table.render() + "\n";
  }
  size_t succeeded = 0, running = 0;
  for (const auto& t : data.trials) {
    succeeded += t.succeeded() ? 1 : 0;
    running += still_running(t) ? 1 : 0;
  }
  const size_t failed = data.trials.size() - succeeded - running;
  // A trial in flight is neither: "did not" is said of those that ended without success.
  std::string outcomes = fmt::format("{} succeeded", succeeded);
  if (failed > 0 || running == 0) {
    outcomes += fmt::format(", {} did not{}", failed, failed == 0 ? "" : " (see [Failures](#failures))");
  }
  if (running > 0) outcomes += fmt::format(", {} still running", running);
  out += fmt::format(
      "{} trial{}: {}. Every number below comes from the latest successful attempt of a "
      "trial; trials that differ only in their repeat index form a group, summarised as mean ± sample std over "
      "its n repeats.\n\n",
      data.trials.size(), data.trials.size() == 1 ? "" : "s", outcomes);
  out += machine_line(data);
}

void answers(const ReportModel& m, RenderedReport& r) { r.markdown += m.answers.section; }
void run_notes(const ReportModel& m, RenderedReport& r) { r.markdown += m.data->run_notes; }

void summary(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_summary(
      {&m.data->trials, m.training, m.comm_rows, m.workloads, m.studies, &m.provenance, m.measurement_warnings});
}

void provenance_warnings(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_provenance_warnings(m.provenance);
}
void training(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_training_section(m.training, m.provenance, m.data->reference_strategy);
}
void utilisation(const ReportModel& m, RenderedReport& r) { r.markdown += render_utilisation_section(m.training); }
void studies_compared(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_study_comparison(m.studies, m.best_alternatives);
}

void training_plots_section(const ReportModel& m, RenderedReport& r) {
  const std::string& dir = m.options->plot_dir;
  PlotSet plots = dir.empty() ? PlotSet{} : training_plots(m.training);
  std::string& out = r.markdown;
  out += "## Plots\n\n";
  if (dir.empty()) {
    out += "Plots are written beside the report when it is saved with `-o FILE`.\n\n";
    return;
  }
  for (const auto& p : plots.plots) out += fmt::format("![{}]({}/{})\n\n", p.caption, dir, p.file);
  for (const auto& note : plots.notes) out += "- " + note + "\n";
  if (!plots.notes.empty()) out += "\n";
  for (auto& p : plots.plots) r.plots.push_back(std::move(p));
}

void conditions(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_conditions_section(m.training, m.provenance);
}
void rank_wait(const ReportModel& m, RenderedReport& r) { r.markdown += render_rank_wait_section(m.stragglers); }
void memory(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_memory_section(m.training, m.provenance, m.data->reference_strategy);
}
void runtime(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_runtime_section(m.training, m.provenance);
}

bool has_profiled(const ReportModel& m) { return !m.profiled.empty(); }
void profile(const ReportModel& m, RenderedReport& r) {
  ProfileSection profile =
      render_profile_section(m.profiled, m.provenance, m.options->plot_dir, m.options->writes_kept_files);
  r.markdown += profile.markdown;
  for (auto& p : profile.plots) r.plots.push_back(std::move(p));
  r.files = std::move(profile.files);
  r.files_left_out = profile.traces_left_out;
  r.markdown += render_profiler_overhead(m.profiled, m.training);
}

bool has_comm(const ReportModel& m) { return !m.comm.empty(); }
// The collectives, with their plots (bandwidth and latency against message size) after the goals
// and before the tables of every measurement.
void communication(const ReportModel& m, RenderedReport& r) {
  std::string figures;
  if (!m.comm_rows.empty() && !m.options->plot_dir.empty()) {
    PlotSet plots = comm_plots(m.comm_rows);
    if (!plots.plots.empty()) figures = "### Communication plots\n\n";
    for (const auto& p : plots.plots)
      figures += fmt::format("![{}]({}/{})\n\n", p.caption, m.options->plot_dir, p.file);
    for (auto& p : plots.plots) r.plots.push_back(std::move(p));
  }
  r.markdown += render_comm_section(m.comm, m.provenance, figures);
}

bool has_references(const ReportModel& m) { return m.options->references.has_value(); }
void references(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_references_section(m.groups, *m.options->references);
}

void fault_tolerance(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_fault_tolerance_section(m.data->trials);
}

bool can_plot(const ReportModel& m) { return !m.options->plot_dir.empty(); }
void fault_tolerance_plots_section(const ReportModel& m, RenderedReport& r) {
  PlotSet plots = fault_tolerance_plots(m.data->trials);
  if (plots.plots.empty()) return;
  r.markdown += "### Timeline\n\n";
  for (const auto& p : plots.plots)
    r.markdown += fmt::format("![{}]({}/{})\n\n", p.caption, m.options->plot_dir, p.file);
  for (auto& p : plots.plots) r.plots.push_back(std::move(p));
}

// Workloads with a section of their own; report_model.cpp gathers their groups in this order.
struct DedicatedKind {
  const char* kind;
  std::string (*render)(const std::vector<const Group*>&);
};
constexpr DedicatedKind kDedicatedKinds[] = {
    {"moe", render_moe_section},
    {"tp", render_tp_section},
    {"groups", render_groups_section},
};

void dedicated_workloads(const ReportModel& m, RenderedReport& r) {
  for (const auto& k : kDedicatedKinds) {
    if (auto g = groups_of(m.groups, k.kind); !g.empty()) r.markdown += k.render(g);
  }
}

// Charts of the workloads with a section of their own.
void workload_plots(const ReportModel& m, RenderedReport& r) {
  PlotSet plots = moe_plots(groups_of(m.groups, "moe"));
  PlotSet parallelism = parallelism_plots(groups_of(m.groups, "tp"), groups_of(m.groups, "groups"));
  for (auto& p : parallelism.plots) plots.plots.push_back(std::move(p));
  if (plots.plots.empty()) return;
  r.markdown += "## Workload plots\n\n";
  for (const auto& p : plots.plots)
    r.markdown += fmt::format("![{}]({}/{})\n\n", p.caption, m.options->plot_dir, p.file);
  for (auto& p : plots.plots) r.plots.push_back(std::move(p));
}

// Any other workload: every numeric metric of its results.
void other_workloads(const ReportModel& m, RenderedReport& r) {
  std::set<std::string> shown = {"train", "comm", "fault", "chain"};
  for (const auto& k : kDedicatedKinds) shown.insert(k.kind);
  std::set<std::string> other_kinds;
  for (const auto& g : m.groups) {
    if (!shown.count(g.kind)) other_kinds.insert(g.kind);
  }
  for (const auto& kind : other_kinds) {
    r.markdown += render_metric_section("Workload " + kind, "Every numeric metric of the results.",
                                        groups_of(m.groups, kind), m.provenance);
  }
}

bool has_faults(const ReportModel& m) {
  for (const auto& t : m.data->trials) {
    if (trial_kind(t) == "fault") return true;
  }
  return false;
}
void faults(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_fault_section(m.data->trials, groups_of(m.groups, "fault"), m.provenance);
}

void all_answers(const ReportModel& m, RenderedReport& r) { r.markdown += m.answers.all; }
void failures(const ReportModel& m, RenderedReport& r) { r.markdown += render_failures_section(m.data->trials); }
void environment(const ReportModel& m, RenderedReport& r) {
  r.markdown += render_environment_section(m.provenance, !m.training.empty());
}

}  // namespace

const std::vector<ReportSection>& report_sections() {
  static const std::vector<ReportSection> sections = {
      {"header", always, header},
      {"answers", always, answers},
      {"run notes", always, run_notes},
      {"summary", always, summary},
      {"provenance warnings", always, provenance_warnings},
      {"training", has_training, training},
      {"utilisation", has_training, utilisation},
      {"studies compared", always, studies_compared},
      {"plots", has_training, training_plots_section},
      {"measurement conditions", has_training, conditions},
      {"rank wait", has_training, rank_wait},
      {"memory", has_training, memory},
      {"runtime", has_training, runtime},
      {"profile", has_profiled, profile},
      {"communication", has_comm, communication},
      {"references", has_references, references},
      {"fault tolerance", always, fault_tolerance},
      {"fault tolerance timeline", can_plot, fault_tolerance_plots_section},
      {"dedicated workloads", always, dedicated_workloads},
      {"workload plots", can_plot, workload_plots},
      {"other workloads", always, other_workloads},
      {"faults", has_faults, faults},
      {"all answers", always, all_answers},
      {"failures", always, failures},
      {"environment", always, environment},
  };
  return sections;
}

}  // namespace mt
