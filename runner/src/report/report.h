#pragma once
// A campaign report in markdown: the answers to the experiment's questions first, then a summary (headline comparisons, best configurations,
// warnings), then every section the data supports, and the plots it links to. Rendering is a pure function of the database rows, so the same database
// always gives the same bytes.
#include <optional>
#include <string>
#include <vector>

#include "experiment/question.h"
#include "report/model/references.h"
#include "report/render/report_plots.h"
#include "report/model/results_source.h"

namespace mt {

struct ReportOptions {
  bool allow_mixed = false;  // report results from different revisions/images together
  // Folder the plots are linked from, relative to the report ("quickstart" for reports/quickstart.md);
  // empty: the report is not saved, so no plots are made.
  std::string plot_dir;
  // Whether the kept files it links (traces) are written into that folder: not for a page on
  // standard output (`report --html -o -`), which draws its plots inline but has no folder beside it.
  bool writes_kept_files = true;
  // Average attempts run on a disturbed machine in with the rest (`report --keep-disturbed`, or the
  // experiment's `conditions: {keep_disturbed: true}`); by default they are named and left out.
  bool keep_disturbed = false;
  // Questions to answer in place of the campaign's (`report --questions FILE`), and where they come
  // from ("`experiments/x.yaml`"); unset: the campaign's, or the defaults when it kept none.
  std::optional<std::vector<Question>> questions;
  std::string questions_source;
  // Published figures to hold the groups against (`report --references FILE`); unset: no such section.
  std::optional<ReferenceFile> references;
};

struct RenderedReport {
  std::string markdown;
  std::vector<Plot> plots;         // written beside the report, in the folder plot_dir names
  std::vector<ReportFile> files;   // kept files it links to (traces), written into that folder too
  std::size_t files_left_out = 0;  // kept files it would link, had it a folder to write them into
};

// Throws RunnerError (exit 2) when the results mix revisions or images and allow_mixed is not set.
RenderedReport render_report(const ReportData& data, const ReportOptions& options);

// The answers to the campaign's questions in plain text, as `mtrun run` prints them after its
// summary (report/sections/answers_section.h); where the results mix builds, a line saying why
// there are none and how to get them; then a line for a drift over the campaign beyond noise
// (campaign_drift.h). Empty when there is no question to answer and no such drift.
std::string render_answers_text(const ReportData& data);

}  // namespace mt
