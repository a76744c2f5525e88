#pragma once
// Small hand-written SVG charts over categories on the x axis: lines with error bars (and dashed
// reference lines), grouped bars with error bars and stacked bars, on a linear or logarithmic y
// axis. The legend sits below the plot and wraps, so no name is ever cut; a shaded band can mark a
// run of categories (warmup steps). Plain SVG 1.1 with inline styles, so GitHub and any browser
// show them; coordinates are printed with fixed decimals, so output is reproducible.
#include <optional>
#include <string>
#include <vector>

namespace mt {

struct ChartSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: no point there
  std::vector<double> errors;                 // ± per category; empty: none
  bool dashed = false;                        // a reference, not a measurement
  int color = -1;                             // palette index; -1: the series' own position
  bool dotted = false;                        // a measurement drawn dotted (points kept): one to read with care
};

// Categories first..last (inclusive) lie on a shaded band, labelled at its top.
struct ChartShade {
  size_t first = 0, last = 0;
  std::string label;
};

struct ChartSpec {
  std::string title{};
  std::string x_title{};
  std::string y_title{};
  std::vector<std::string> categories{};
  std::vector<ChartSeries> series{};
  bool log_y = false;  // a logarithmic y axis (values ≤ 0 are not drawn)
  std::optional<ChartShade> shade = std::nullopt;
};

// Whether the series' positive values span more than `ratio` (largest ÷ smallest): where a linear
// axis would flatten the small ones into the floor.
bool spans_decades(const ChartSpec& chart, double ratio = 30);

std::string line_chart_svg(const ChartSpec& chart);
// Bars side by side per category, or stacked (series are the segments, bottom first).
std::string bar_chart_svg(const ChartSpec& chart, bool stacked);

// 1, 2, 5 × 10^k at or above `raw`: tick spacing people read easily.
double nice_step(double raw);

}  // namespace mt
