#include "report/report.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "report/answers_section.h"
#include "report/cells.h"
#include "report/comm_plots.h"
#include "report/comm_rows.h"
#include "report/comm_table.h"
#include "report/conditions_section.h"
#include "report/disturbance_summary.h"
#include "report/environment_section.h"
#include "report/failures_section.h"
#include "report/fault_tolerance_section.h"
#include "report/groups.h"
#include "report/markdown_table.h"
#include "report/memory_section.h"
#include "report/metric_sections.h"
#include "report/moe_section.h"
#include "report/parallelism_section.h"
#include "report/profile_section.h"
#include "report/profiler_overhead_section.h"
#include "report/provenance_check.h"
#include "report/rank_wait_section.h"
#include "report/references_section.h"
#include "report/step_profile.h"
#include "report/study_comparison.h"
#include "report/summary_section.h"
#include "report/training_tables.h"
#include "report/utilisation_section.h"
#include "runner_error.h"

namespace mt {
namespace {

std::string header(const ReportData& data) {
  const Campaign& last = data.campaigns.back();
  std::string out = fmt::format("# {} report\n\n", last.experiment);
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
  size_t succeeded = 0;
  for (const auto& t : data.trials) succeeded += t.succeeded() ? 1 : 0;
  out += fmt::format(
      "{} trial{}: {} succeeded, {} did not{}. Every number below comes from the latest successful attempt of a "
      "trial; trials that differ only in their repeat index form a group, summarised as mean ± sample std over "
      "its n repeats.\n\n",
      data.trials.size(), data.trials.size() == 1 ? "" : "s", succeeded, data.trials.size() - succeeded,
      succeeded == data.trials.size() ? "" : " (see [Failures](#failures))");
  return out;
}

std::string plots_section(const PlotSet& plots, const ReportOptions& options) {
  std::string out = "## Plots\n\n";
  if (options.plot_dir.empty()) return out + "Plots are written beside the report when it is saved with `-o FILE`.\n\n";
  for (const auto& p : plots.plots) out += fmt::format("![{}]({}/{})\n\n", p.caption, options.plot_dir, p.file);
  for (const auto& note : plots.notes) out += "- " + note + "\n";
  return plots.notes.empty() ? out : out + "\n";
}

// Workloads with a section of their own, in the order the report shows them.
struct DedicatedKind {
  const char* kind;
  std::string (*render)(const std::vector<const Group*>&);
};
constexpr DedicatedKind kDedicatedKinds[] = {
    {"moe", render_moe_section},
    {"tp", render_tp_section},
    {"groups", render_groups_section},
};

// The questions to answer and where they were declared: `--questions`, else the campaign's, else
// none (the defaults).
AnswerInputs answer_inputs(const ReportData& data, const ReportOptions& options, const std::vector<Group>& groups,
                           const std::vector<Group>& profiled) {
  AnswerInputs in;
  if (options.questions) {
    in.questions = *options.questions;
    in.source = options.questions_source;
  } else if (data.questions) {
    in.questions = *data.questions;
    in.source = fmt::format("declared in the experiment file when campaign {} ran", code(data.campaigns.back().id));
  }
  for (const auto& g : groups) in.groups.push_back(&g);
  for (const auto& g : profiled) in.profiled.push_back(&g);
  return in;
}

}  // namespace

RenderedReport render_report(const ReportData& data, const ReportOptions& options) {
  ProvenanceAnalysis provenance = analyse_provenance(data.trials);
  if (provenance.mixed() && !options.allow_mixed) throw RunnerError(kExitUsage, mixed_refusal_message(provenance));
  // Profiled training runs carry the profiler's cost: they have sections of their own, and every
  // other section is made of unprofiled runs.
  std::vector<Group> groups, profiled_groups;
  const bool keep_disturbed = options.keep_disturbed || data.keep_disturbed;
  for (auto& g : group_trials(data.trials, keep_disturbed))
    (g.kind == "train" && is_profiled(g) ? profiled_groups : groups).push_back(std::move(g));
  auto training = groups_of(groups, "train");
  auto profiled = groups_of(profiled_groups, "train");
  std::vector<ContrastRow> studies = study_contrasts(groups);

  RenderedReport report;
  std::string& md = report.markdown;
  md += header(data);
  RenderedAnswers answers = render_answers(answer_inputs(data, options, groups, profiled_groups));
  md += answers.section;
  auto comm = groups_of(groups, "comm");
  std::vector<const Group*> comm_rows;
  std::copy_if(comm.begin(), comm.end(), std::back_inserter(comm_rows),
               [](const Group* g) { return has_result_rows(*g); });
  std::vector<const Group*> workloads;
  for (const auto& k : kDedicatedKinds) {
    for (const Group* g : groups_of(groups, k.kind)) workloads.push_back(g);
  }
  md += data.run_notes;
  std::vector<std::string> measurement = disturbance_warnings(data.trials, keep_disturbed);
  for (std::size_t i = 1; i < data.campaigns.size(); ++i) {
    const std::string& a = data.campaigns.front().id;
    const std::string& b = data.campaigns[i].id;
    if (auto w = calibration_difference(code(a), calibrations_of(data.trials, a), code(b),
                                        calibrations_of(data.trials, b))) {
      measurement.push_back(*w);
    }
  }
  std::vector<RankWaitRow> stragglers = straggler_rows(training);
  for (auto& w : straggler_warnings(stragglers)) measurement.push_back(std::move(w));
  md += render_summary({&data.trials, training, comm_rows, workloads, studies, &provenance, std::move(measurement)});
  md += render_provenance_warnings(provenance);
  if (!training.empty()) {
    md += render_training_section(training, provenance);
    md += render_utilisation_section(training);
    md += render_study_comparison(studies);
    PlotSet plots = options.plot_dir.empty() ? PlotSet{} : training_plots(training);
    md += plots_section(plots, options);
    report.plots = std::move(plots.plots);
    md += render_conditions_section(training, provenance);
    md += render_rank_wait_section(stragglers);
    md += render_memory_section(training, provenance);
    md += render_runtime_section(training, provenance);
  } else {
    md += render_study_comparison(studies);
  }
  if (!profiled.empty()) {
    ProfileSection profile = render_profile_section(profiled, provenance, options.plot_dir);
    md += profile.markdown;
    for (auto& p : profile.plots) report.plots.push_back(std::move(p));
    report.files = std::move(profile.files);
    md += render_profiler_overhead(profiled, training);
  }
  if (!comm.empty()) md += render_comm_section(comm, provenance);
  if (!comm_rows.empty() && !options.plot_dir.empty()) {
    PlotSet plots = comm_plots(comm_rows);
    if (!plots.plots.empty()) {
      md += "## Communication plots\n\n";
      for (const auto& p : plots.plots) md += fmt::format("![{}]({}/{})\n\n", p.caption, options.plot_dir, p.file);
      for (auto& p : plots.plots) report.plots.push_back(std::move(p));
    }
  }
  if (options.references) md += render_references_section(groups, *options.references);
  md += render_fault_tolerance_section(data.trials);
  std::set<std::string> shown = {"train", "comm", "fault", "chain"};
  for (const auto& k : kDedicatedKinds) {
    shown.insert(k.kind);
    if (auto g = groups_of(groups, k.kind); !g.empty()) md += k.render(g);
  }
  std::set<std::string> other_kinds;
  for (const auto& g : groups) {
    if (!shown.count(g.kind)) other_kinds.insert(g.kind);
  }
  for (const auto& kind : other_kinds) {
    md += render_metric_section("Workload " + kind, "Every numeric metric of the results.", groups_of(groups, kind),
                                provenance);
  }
  bool any_fault = false;
  for (const auto& t : data.trials) any_fault = any_fault || trial_kind(t) == "fault";
  if (any_fault) md += render_fault_section(data.trials, groups_of(groups, "fault"), provenance);
  md += answers.all;
  md += render_failures_section(data.trials);
  md += render_environment_section(provenance, !training.empty());
  while (md.size() >= 2 && md[md.size() - 1] == '\n' && md[md.size() - 2] == '\n') md.pop_back();
  return report;
}

}  // namespace mt
