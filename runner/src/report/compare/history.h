#pragma once
// `mtrun history EXPERIMENT`: every campaign of one experiment in revision order, one row per
// configuration and revision (mean and 95 % CI of a metric), and the revisions where the metric
// changed beyond noise (change_point.h) — as markdown and as an SVG line chart.
#include <optional>
#include <string>

#include "report/model/results_source.h"

namespace mt {

struct HistoryOptions {
  std::optional<std::string> metric;  // nullopt: each configuration's key metric (tokens/s, algbw, …)
  double min_change = 0.05;           // smallest change (share of the earlier mean) called a change point
  bool keep_disturbed = false;        // average attempts run on a disturbed machine in
};

struct RenderedHistory {
  std::string markdown;
  std::string svg;  // the metric's mean per revision, one line per configuration
  int change_points = 0;
};

// `data` holds the experiment's campaigns, oldest first. Throws RunnerError (usage) when --metric
// names a metric no configuration has.
RenderedHistory render_history(const ReportData& data, const HistoryOptions& options);

}  // namespace mt
