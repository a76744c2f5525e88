#pragma once
// A rendered report as one self-contained HTML page: the same markdown converted to HTML, each plot
// drawn inline as SVG, links to its sections after the title, with the page's CSS and a few lines
// of script that sort a table by the column whose heading is clicked. Nothing is fetched from
// anywhere.
#include <string>

#include "report/report.h"

namespace mt {

// `plot_dir` is the folder the markdown links its plots from (ReportOptions::plot_dir).
std::string render_report_html(const RenderedReport& report, const std::string& plot_dir);

}  // namespace mt
