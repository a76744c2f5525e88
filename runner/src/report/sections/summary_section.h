#pragma once
// The summary a report opens with, before any wide table: the headline comparisons (ratio, p, n),
// the best configuration per rank count (fastest, with whether it beats the runner-up beyond
// noise, and leanest in model state), how well the numbers were measured, and the warnings that
// qualify all of it.
#include <string>
#include <vector>

#include "report/model/contrast.h"
#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

struct SummaryInputs {
  const std::vector<ReportTrial>* trials = nullptr;
  std::vector<const Group*> training;        // the training groups
  std::vector<const Group*> comm_rows;       // collective groups whose results carry rows
  std::vector<const Group*> workloads;       // the MoE, tensor-parallel and process-group groups
  std::vector<ContrastRow> study_contrasts;  // decided
  const ProvenanceAnalysis* provenance = nullptr;
  std::vector<std::string> measurement_warnings;  // disturbed attempts, differing calibrations
};

std::string render_summary(const SummaryInputs& inputs);

}  // namespace mt
