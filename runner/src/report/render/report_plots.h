#pragma once
// The report's charts, from its training groups: tokens/s against ranks per configuration (± std
// error bars; dashed ideal scaling only where added ranks brought their own cores; bars per
// configuration when all ran at one rank count), peak RSS split into model state and the rest,
// model state per configuration, and the step-time breakdown. Every series is named by what tells it
// from the others (series_names.h), so no two share a label; a chart is drawn only from what was
// measured, and one with nothing to show is left out with the reason.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/render/svg_chart.h"

namespace mt {

struct Plot {
  std::string file;     // "tokens_per_sec.svg"
  std::string caption;  // alt text and heading
  ChartSpec chart;      // what is drawn
  std::string svg;
};

struct PlotSet {
  std::vector<Plot> plots;
  std::vector<std::string> notes;  // what was left out of the plots, and why
};

// Nothing when there are no training groups.
PlotSet training_plots(const std::vector<const Group*>& groups);

}  // namespace mt
