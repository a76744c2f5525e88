#include "report/render/svg_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_html.h"

namespace mt {
namespace {

constexpr double kWidth = 720;
constexpr double kLeft = 80, kRight = 24, kTop = 44;  // plot margins (the left one grows for tilted labels)
constexpr double kPlotH = 276;
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string num(double v) { return fixed(v, 1); }

const char* color(const ChartSeries& s, size_t index) {
  size_t i = s.color >= 0 ? size_t(s.color) : index;
  return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

// Characters, not bytes: labels carry "×" and "⚠".
size_t glyphs(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

constexpr double kCharWidth = 7;  // about, at this font size
constexpr double kLineHeight = 14;

// The y axis: linear from 0, or logarithmic over whole decades.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;
  double top = kTop;  // lower when the title takes two lines
  double y(double v) const {
    const double t =
        log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return top + kPlotH - std::clamp(t, 0.0, 1.0) * kPlotH;
  }
};

// A tick label: no more decimals than the value needs.
std::string tick_text(double v) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return fixed(v, 0);  // an axis over values near a double's limit: "inf", "nan"
  const double magnitude = std::fabs(v);
  if (magnitude >= 1) return fixed(v, std::fabs(v - std::round(v)) < 1e-9 ? 0 : 1);
  int decimals = int(std::ceil(-std::log10(magnitude) - 1e-9));
  while (decimals < 12 && std::fabs(v - std::stod(fixed(v, decimals))) > magnitude * 1e-6) ++decimals;
  return fixed(v, decimals);
}

struct Tick {
  double value;
  std::string text;
};

// The positive values, each with its error below and above, of every series.
void value_range(const ChartSpec& c, bool stacked, double& low, double& high) {
  low = 0;
  high = 0;
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double sum = 0;
    for (const auto& s : c.series) {
      if (i >= s.values.size() || !s.values[i]) continue;
      const double e = i < s.errors.size() ? s.errors[i] : 0;
      const double v = *s.values[i];
      sum += v;
      high = std::max(high, stacked ? sum : v + e);
      const double bottom = v - e > 0 ? v - e : v;
      if (v > 0 && (low == 0 || bottom < low)) low = bottom;
    }
  }
}

Axis make_axis(const ChartSpec& c, bool stacked, std::vector<Tick>& ticks) {
  double low, high;
  value_range(c, stacked, low, high);
  Axis a;
  if (c.log_y && low > 0 && high > 0) {
    a.log = true;
    a.lo = std::pow(10, std::floor(std::log10(low) + 1e-9));
    a.hi = std::pow(10, std::ceil(std::log10(high) - 1e-9));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    const int decades = int(std::lround(std::log10(a.hi / a.lo)));
    for (int d = 0; d <= decades; ++d) {
      const double base = a.lo * std::pow(10, d);
      ticks.push_back({base, tick_text(base)});
      if (decades <= 2 && d < decades) {
        for (double m : {2.0, 5.0}) ticks.push_back({base * m, tick_text(base * m)});
      }
    }
    return a;
  }
  const double top = std::max(high, 1e-12);
  const double step = nice_step(top / 5);
  a.hi = step * std::ceil(top / step);
  const int count = int(std::lround(a.hi / step));
  for (int k = 0; k <= count; ++k) ticks.push_back({step * k, tick_text(step * k)});
  return a;
}

// Category labels: level when they fit their slot, tilted when neighbours stay a line apart, else
// upright; the chart grows downwards to hold the longest. A long run of categories (steps) is
// labelled every few, level.
enum class LabelTilt { Level, Tilted, Upright };

struct CategoryLabels {
  LabelTilt tilt = LabelTilt::Level;
  size_t every = 1;
  double depth = 0;  // below the first line
};

CategoryLabels category_labels(const ChartSpec& c, double slot) {
  CategoryLabels l;
  size_t longest = 0;
  for (const auto& label : c.categories) longest = std::max(longest, glyphs(label));
  const double width = double(longest) * kCharWidth;
  if (width + 2 * kCharWidth <= slot) return l;  // a gap of two characters between neighbours
  if (c.categories.size() > 24) {
    l.every = size_t(std::ceil((width + kCharWidth) / slot));
    return l;
  }
  l.tilt = slot / 2 >= kLineHeight ? LabelTilt::Tilted : LabelTilt::Upright;  // tilted lines lie slot·sin 30° apart
  l.depth = l.tilt == LabelTilt::Tilted ? width / 2 : width;
  return l;
}

// The legend, below everything else: entries left to right, wrapping to a new row when the next
// would pass the right edge.
struct LegendEntry {
  size_t series;
  double x, row;
};

std::vector<LegendEntry> legend_layout(const ChartSpec& c, size_t& rows) {
  std::vector<LegendEntry> out;
  double x = kLeft;
  rows = 0;
  for (size_t i = 0; i < c.series.size(); ++i) {
    if (c.series[i].name.empty()) continue;
    const double width = 20 + double(glyphs(c.series[i].name)) * kCharWidth + 18;
    if (rows == 0 || (x + width > kWidth - 8 && x > kLeft)) {
      x = kLeft;
      ++rows;
    }
    out.push_back({i, x, double(rows - 1)});
    x += width;
  }
  return out;
}

struct Frame {
  Axis axis;
  size_t categories = 1;
  double left = kLeft;
  double height = 0, legend_top = 0;
  std::vector<LegendEntry> legend;
  double plot_w() const { return kWidth - left - kRight; }
  double x(size_t category) const { return left + (double(category) + 0.5) * plot_w() / double(categories); }
  double slot() const { return plot_w() / double(categories); }
  double y(double v) const { return axis.y(v); }
};

// Labels tilted by 30° reach cos 30° of their width left of their category: the plot moves right
// until the first one fits (the others have the categories before them to reach into).
double left_margin(const ChartSpec& c) {
  size_t longest = 0;
  for (const auto& label : c.categories) longest = std::max(longest, glyphs(label));
  const size_t n = std::max<size_t>(c.categories.size(), 1);
  const double width = double(longest) * kCharWidth;
  const double slot = (kWidth - kLeft - kRight) / double(n);
  if (width + 2 * kCharWidth <= slot || c.categories.size() > 24 || slot / 2 < kLineHeight) return kLeft;
  // Solve left + slot'/2 >= 0.87·(first label's width) + 4, where slot' = (kWidth − left − kRight) / n.
  const double needed = 0.87 * double(glyphs(c.categories.front())) * kCharWidth + 4;
  double left = kLeft;
  for (int i = 0; i < 8 && left + (kWidth - left - kRight) / double(n) / 2 < needed; ++i) {
    left = needed - (kWidth - left - kRight) / double(n) / 2 + 1;
  }
  return std::min(std::max(left, kLeft), kWidth / 2);
}

std::string open_frame(const ChartSpec& c, Frame& f, bool stacked) {
  std::vector<Tick> ticks;
  f.axis = make_axis(c, stacked, ticks);
  f.categories = std::max<size_t>(c.categories.size(), 1);
  f.left = left_margin(c);
  const CategoryLabels labels = category_labels(c, f.slot());
  size_t legend_rows = 0;
  f.legend = legend_layout(c, legend_rows);
  // A title too long for one line (about 9.2 px a bold character) breaks at the last space that fits.
  const size_t title_room = size_t((kWidth - 20) / 9.2);
  std::vector<std::string> title_lines = {c.title};
  if (glyphs(c.title) > title_room) {
    size_t cut = 0, seen = 0;
    for (size_t i = 0; i < c.title.size(); ++i) {
      if ((static_cast<unsigned char>(c.title[i]) & 0xC0) != 0x80) ++seen;
      if (seen > title_room) break;
      if (c.title[i] == ' ') cut = i;
    }
    if (cut > 0) title_lines = {c.title.substr(0, cut), c.title.substr(cut + 1)};
  }
  const double top = kTop + 18 * double(title_lines.size() - 1);
  f.axis.top = top;
  const double x_title_y = top + kPlotH + 18 + labels.depth + 24;
  f.legend_top = x_title_y + 12;
  f.height = std::ceil(f.legend_top + 20 * double(legend_rows) + 8);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
      num(kWidth), num(f.height));
  for (size_t i = 0; i < title_lines.size(); ++i) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
                       num(title_lines.size() > 1 || glyphs(c.title) * 9.2 > kWidth - kLeft - 10 ? 10 : kLeft),
                       num(24 + 18 * double(i)), html_escape(title_lines[i]));
  }
  if (c.shade && c.shade->first <= c.shade->last && c.shade->last < c.categories.size()) {
    const double x0 = f.x(c.shade->first) - f.slot() / 2, x1 = f.x(c.shade->last) + f.slot() / 2;
    out += fmt::format(
        "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"#eeeeee\"/>\n"
        "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\" fill=\"#555555\">{6}</text>\n",
        num(x0), num(top), num(x1 - x0), num(kPlotH), num((x0 + x1) / 2), num(top + 14), html_escape(c.shade->label));
  }
  for (const auto& t : ticks) {
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#dddddd\"/>\n"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        num(f.left), num(f.y(t.value)), num(f.left + f.plot_w()), num(f.left - 6), num(f.y(t.value) + 4), t.text);
  }
  for (size_t i = 0; i < c.categories.size(); ++i) {
    if (i % labels.every != 0) continue;
    double y = top + kPlotH + 18;
    if (labels.tilt == LabelTilt::Level) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(f.x(i)), num(y),
                         html_escape(c.categories[i]));
    } else {
      // Upright labels hang from the axis, their middle under the category.
      double x = labels.tilt == LabelTilt::Upright ? f.x(i) + 4 : f.x(i);
      out +=
          fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate({3} {0} {1})\">{2}</text>\n",
                      num(x), num(y - 8), html_escape(c.categories[i]), labels.tilt == LabelTilt::Upright ? -90 : -30);
    }
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"black\"/>\n"
      "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n"
      "<text x=\"{9}\" y=\"{7}\" text-anchor=\"middle\" transform=\"rotate(-90 {9} {7})\">{8}</text>\n",
      num(f.left), num(top + kPlotH), num(f.left + f.plot_w()), num(top), num(f.left + f.plot_w() / 2), num(x_title_y),
      html_escape(c.x_title), num(top + kPlotH / 2), html_escape(c.y_title + (f.axis.log ? " (log scale)" : "")),
      num(f.left - 62));
  return out;
}

// A point's marker: circle, square, triangle or diamond by the series' position, so that lines
// lying on one another (two peers measuring the same) still show both.
std::string marker(size_t series, double x, double y, double r, const char* colour) {
  switch (series % 4) {
    case 0: return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", num(x), num(y), num(r), colour);
    case 1:
      return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", num(x - r), num(y - r),
                         num(2 * r), num(2 * r), colour);
    case 2:
      return fmt::format("<path d=\"M{},{} L{},{} L{},{} Z\" fill=\"{}\"/>\n", num(x), num(y - 1.3 * r),
                         num(x + 1.2 * r), num(y + r), num(x - 1.2 * r), num(y + r), colour);
    default:
      return fmt::format("<path d=\"M{},{} L{},{} L{},{} L{},{} Z\" fill=\"{}\"/>\n", num(x), num(y - 1.4 * r),
                         num(x + 1.4 * r), num(y), num(x), num(y + 1.4 * r), num(x - 1.4 * r), num(y), colour);
  }
}

std::string stroke_style(const ChartSeries& s) {
  if (s.dashed) return " stroke-dasharray=\"5,3\"";
  return s.dotted ? " stroke-dasharray=\"2,3\"" : "";
}

std::string legend(const ChartSpec& c, const Frame& f, bool boxes) {
  std::string out;
  for (const auto& e : f.legend) {
    const auto& s = c.series[e.series];
    const double x = e.x, y = f.legend_top + 20 * e.row + 10;
    out += boxes ? fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>\n", num(x), num(y - 9),
                               color(s, e.series))
                 : fmt::format(
                       "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>\n",
                       num(x), num(x + 14), num(y - 4), color(s, e.series), stroke_style(s)) +
                       (s.dashed ? "" : marker(e.series, x + 7, y - 4, 3, color(s, e.series)));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(x + 20), num(y), html_escape(s.name));
  }
  return out;
}

std::string error_bar(const Frame& f, double x, double value, double error, const char* colour) {
  if (error <= 0) return "";
  const double lo = f.y(f.axis.log ? std::max(value - error, f.axis.lo) : std::max(0.0, value - error));
  const double hi = f.y(value + error);
  return fmt::format(
      "<path d=\"M{0},{1} L{0},{2} M{3},{1} L{4},{1} M{3},{2} L{4},{2}\" stroke=\"{5}\" stroke-width=\"1.5\"/>\n",
      num(x), num(lo), num(hi), num(x - 5), num(x + 5), colour);
}

bool drawable(const Frame& f, const std::optional<double>& v) { return v && (!f.axis.log || *v > 0); }

}  // namespace

double nice_step(double raw) {
  double base = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * base >= raw * (1 - 1e-9)) return m * base;
  }
  return 10 * base;
}

bool spans_decades(const ChartSpec& chart, double ratio) {
  double low = 0, high = 0;
  for (const auto& s : chart.series) {
    for (const auto& v : s.values) {
      if (!v || *v <= 0) continue;
      low = low == 0 ? *v : std::min(low, *v);
      high = std::max(high, *v);
    }
  }
  return low > 0 && high / low > ratio;
}

std::string line_chart_svg(const ChartSpec& c) {
  Frame f;
  std::string out = open_frame(c, f, false);
  // Many points: smaller markers, so that the line stays visible.
  const double radius = c.categories.size() > 24 ? 2 : 4;
  for (size_t si = 0; si < c.series.size(); ++si) {
    const auto& s = c.series[si];
    std::string points;
    for (size_t i = 0; i < s.values.size() && i < c.categories.size(); ++i) {
      if (drawable(f, s.values[i]))
        points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(f.x(i)), num(f.y(*s.values[i])));
    }
    if (points.empty()) continue;
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", points,
                       color(s, si), stroke_style(s));
    for (size_t i = 0; i < s.values.size() && i < c.categories.size(); ++i) {
      if (!drawable(f, s.values[i]) || s.dashed) continue;
      double x = f.x(i), y = f.y(*s.values[i]);
      if (i < s.errors.size()) out += error_bar(f, x, *s.values[i], s.errors[i], color(s, si));
      out += marker(si, x, y, radius, color(s, si));
    }
  }
  return out + legend(c, f, false) + "</svg>\n";
}

std::string bar_chart_svg(const ChartSpec& c, bool stacked) {
  Frame f;
  std::string out = open_frame(c, f, stacked);
  size_t n = std::max<size_t>(c.series.size(), 1);
  double group_w = f.slot() * 0.7;
  double bar_w = stacked ? group_w : group_w / double(n);
  const double floor = f.axis.log ? f.axis.lo : 0;
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double base = floor;
    for (size_t si = 0; si < c.series.size(); ++si) {
      const auto& s = c.series[si];
      if (i >= s.values.size() || !drawable(f, s.values[i])) continue;
      double v = *s.values[i];
      double x = stacked ? f.x(i) - group_w / 2 : f.x(i) - group_w / 2 + bar_w * double(si);
      double top = f.y(stacked ? base + v : v), bottom = f.y(base);
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {}</title></rect>\n", num(x),
          num(top), num(bar_w), num(bottom - top), color(s, si), html_escape(s.name), auto_number(v));
      if (stacked) base += v;
      else if (i < s.errors.size()) out += error_bar(f, x + bar_w / 2, v, s.errors[i], "#333333");
    }
  }
  return out + legend(c, f, true) + "</svg>\n";
}

}  // namespace mt
