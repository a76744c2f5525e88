#pragma once
// What the engine's profiler measured for each profiled training group (`mtengine train --profile`,
// the result's "profile"): where a step's time goes, how much communication hid behind
// computation, and how evenly the ranks kept pace. Each trial's figure is the mean over its ranks
// of that rank's per-step mean; a group's is the mean ± std of that over its repeats.
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "stats.h"

namespace mt {

// The trial's profiler summary (the result's "profile" object), or null when it has none.
const nlohmann::json* profile_of(const ReportTrial& trial);

// Whether the group's results carry the profiler's summary: a profiled run, whose timings include
// the profiler's own cost.
bool is_profiled(const Group& group);

// A step as the stacked bar draws it, in ms; the parts add up to data + forward-backward +
// optimizer + other. Hidden and exposed communication are carved out of forward-backward, where DDP
// and FSDP run their collectives (what exceeds it, out of the optimizer phase, where ZeRO does).
struct StepParts {
  double data = 0, compute = 0, hidden = 0, exposed = 0, optimizer = 0, other = 0;
};

struct StepProfileRow {
  const Group* group = nullptr;
  Summary step_ms, data_ms, forward_backward_ms, optimizer_ms;
  Summary communication_ms, exposed_ms, overlap_fraction, collectives;  // collectives: spans per step in the trace
  Summary step_min_ms, step_p50_ms, step_max_ms, straggler_ratio;       // across ranks
  Summary buckets;
  std::optional<double> largest_bucket_mib;  // over the group's trials
  // The trial whose traces the report links: the first with traces kept (its configuration's first
  // repeat), and their stored names in rank order; null and empty when none were kept.
  const ReportTrial* traced = nullptr;
  std::vector<std::string> traces;

  StepParts parts() const;
};

// One row per profiled group, in the order given.
std::vector<StepProfileRow> step_profile_rows(const std::vector<const Group*>& groups);

// Stored trace names of a trial ("profile/rank_00000.trace.json", …), in rank order.
std::vector<std::string> trace_files(const ReportTrial& trial);

}  // namespace mt
