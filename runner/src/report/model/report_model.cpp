#include "report/model/report_model.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "report/model/comm_rows.h"
#include "report/model/disturbance_summary.h"
#include "report/render/markdown_table.h"
#include "report/model/step_profile.h"
#include "report/sections/study_comparison.h"
#include "runner_error.h"

namespace mt {
namespace {

// Workloads with a section of their own, in the order the report shows them (report_sections.cpp).
constexpr const char* kDedicatedKinds[] = {"moe", "tp", "groups"};

std::vector<std::string> measurement_warnings(const ReportModel& m) {
  const ReportData& data = *m.data;
  std::vector<std::string> out = disturbance_warnings(data.trials, m.keep_disturbed);
  for (std::size_t i = 1; i < data.campaigns.size(); ++i) {
    const std::string& a = data.campaigns.front().id;
    const std::string& b = data.campaigns[i].id;
    if (auto w = calibration_difference(code(a), calibrations_of(data.trials, a), code(b),
                                        calibrations_of(data.trials, b))) {
      out.push_back(*w);
    }
  }
  for (auto& w : straggler_warnings(m.stragglers)) out.push_back(std::move(w));
  return out;
}

}  // namespace

AnswerInputs answer_inputs(const ReportModel& m) {
  AnswerInputs in;
  if (m.options->questions) {
    in.questions = *m.options->questions;
    in.source = m.options->questions_source;
  } else if (m.data->questions) {
    in.questions = *m.data->questions;
    in.source = fmt::format("declared in the experiment file when campaign {} ran", code(m.data->campaigns.back().id));
  }
  in.groups = group_pointers(m.groups);
  in.profiled = group_pointers(m.profiled_groups);
  in.reference_strategy = m.data->reference_strategy;
  in.keep_disturbed = m.keep_disturbed;
  in.disturbed_only = m.keep_disturbed ? 0 : int(disturbed_groups(m.data->trials).size());
  in.planned = &m.data->trials;
  return in;
}

ReportModel build_report_model(const ReportData& data, const ReportOptions& options) {
  ReportModel m;
  m.data = &data;
  m.options = &options;
  m.provenance = analyse_provenance(data.trials);
  if (m.provenance.mixed() && !options.allow_mixed) throw RunnerError(kExitUsage, mixed_refusal_message(m.provenance));
  // Profiled training runs carry the profiler's cost: they have sections of their own, and every
  // other section is made of unprofiled runs.
  m.keep_disturbed = options.keep_disturbed || data.keep_disturbed;
  for (auto& g : group_trials(data.trials, m.keep_disturbed))
    (g.kind == "train" && is_profiled(g) ? m.profiled_groups : m.groups).push_back(std::move(g));
  m.training = groups_of(m.groups, "train");
  m.profiled = groups_of(m.profiled_groups, "train");
  m.comm = groups_of(m.groups, "comm");
  std::copy_if(m.comm.begin(), m.comm.end(), std::back_inserter(m.comm_rows),
               [](const Group* g) { return has_result_rows(*g); });
  for (const char* kind : kDedicatedKinds) {
    for (const Group* g : groups_of(m.groups, kind)) m.workloads.push_back(g);
  }
  m.studies = study_contrasts(m.groups);
  m.best_alternatives = best_alternative_contrasts(m.groups);
  m.stragglers = straggler_rows(m.training);
  m.measurement_warnings = measurement_warnings(m);
  m.answers = render_answers(answer_inputs(m));
  return m;
}

}  // namespace mt
