#pragma once
// "Where a step's time goes": for every profiled training configuration, a stacked bar of a step
// (data, forward-backward, the communication hidden under it, exposed communication, optimizer),
// the numbers behind it, the communication and the ranks' pace (overlap, collectives per step,
// buckets, step time across ranks, straggler ratio), and links to the Chrome traces of one attempt.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"
#include "report/render/report_plots.h"
#include "report/model/results_source.h"

namespace mt {

struct ProfileSection {
  std::string markdown;             // "" when no group is profiled
  std::vector<Plot> plots;          // written into the report's folder
  std::vector<ReportFile> files;    // the linked traces, written into the report's folder
  std::size_t traces_left_out = 0;  // traces kept in the database but not linked: nowhere to write them
};

// `report_dir`: the report's folder as its links name it ("ddp_buckets"); empty when the report is
// not saved, which leaves out the chart and the traces. `link_traces` false: the chart is drawn
// (a page on standard output holds it inline) but the traces, which have no folder to go to, are not linked.
ProfileSection render_profile_section(const std::vector<const Group*>& profiled, const ProvenanceAnalysis& provenance,
                                      const std::string& report_dir, bool link_traces = true);

// Where a trial's trace goes in the report's folder: "traces/0123456789ab/rank_00000.trace.json".
std::string trace_path(const ReportTrial& trial, const std::string& stored_name);

}  // namespace mt
