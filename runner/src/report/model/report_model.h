#pragma once
// What a report is made of, worked out once from the database rows before any section is written:
// the provenance verdict, the groups (profiled training runs apart from the rest), the groups of
// each kind a section shows, the studies compared, the stragglers, the warnings on how the machine
// measured, and the answers to the experiment's questions. Sections (report_sections.h) only read it.
#include <string>
#include <vector>

#include "report/sections/answers_section.h"
#include "report/model/contrast.h"
#include "report/model/groups.h"
#include "report/model/provenance_check.h"
#include "report/sections/rank_wait_section.h"
#include "report/report.h"

namespace mt {

// Not copyable: the group lists point into `groups` and `profiled_groups`.
struct ReportModel {
  ReportModel() = default;
  ReportModel(const ReportModel&) = delete;
  ReportModel& operator=(const ReportModel&) = delete;
  ReportModel(ReportModel&&) = default;

  const ReportData* data = nullptr;
  const ReportOptions* options = nullptr;
  ProvenanceAnalysis provenance;
  bool keep_disturbed = false;
  std::vector<Group> groups;           // every group but the profiled training runs
  std::vector<Group> profiled_groups;  // training runs under the profiler: sections of their own
  std::vector<const Group*> training, profiled, comm;
  std::vector<const Group*> comm_rows;         // collective groups whose results carry rows
  std::vector<const Group*> workloads;         // MoE, tensor-parallel and process-group groups, in section order
  std::vector<ContrastRow> studies;            // the studies compared, decided
  std::vector<ContrastRow> best_alternatives;  // the first study against the fastest other, decided
  std::vector<RankWaitRow> stragglers;
  std::vector<std::string> measurement_warnings;  // disturbed attempts, differing calibrations, stragglers
  RenderedAnswers answers;
};

// Throws RunnerError (exit 2) when the results mix revisions or images and allow_mixed is not set.
// The model points to `data` and `options`, which must outlive it: temporaries are refused.
ReportModel build_report_model(const ReportData& data, const ReportOptions& options);
ReportModel build_report_model(const ReportData&&, const ReportOptions&) = delete;
ReportModel build_report_model(const ReportData&, const ReportOptions&&) = delete;

// The questions to answer and where they were declared (`report --questions`, else the campaign's,
// else none: the defaults), with the groups they are answered from.
AnswerInputs answer_inputs(const ReportModel& model);

}  // namespace mt
