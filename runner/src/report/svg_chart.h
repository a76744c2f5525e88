#pragma once
// Small hand-written SVG charts over categories on the x axis: lines with error bars (and dashed
// reference lines), grouped bars and stacked bars. Plain SVG 1.1 with inline styles, so GitHub and
// any browser show them; coordinates are printed with fixed decimals, so output is reproducible.
#include <optional>
#include <string>
#include <vector>

namespace mt {

struct ChartSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: no point there
  std::vector<double> errors;                 // ± per category (lines only); empty: none
  bool dashed = false;                        // a reference, not a measurement
  int color = -1;                             // palette index; -1: the series' own position
};

struct ChartSpec {
  std::string title;
  std::string x_title;
  std::string y_title;
  std::vector<std::string> categories;
  std::vector<ChartSeries> series;
};

std::string line_chart_svg(const ChartSpec& chart);
// Bars side by side per category, or stacked (series are the segments, bottom first).
std::string bar_chart_svg(const ChartSpec& chart, bool stacked);

// 1, 2, 5 × 10^k at or above `raw`: tick spacing people read easily.
double nice_step(double raw);

}  // namespace mt
