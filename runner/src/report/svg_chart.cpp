#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/cells.h"

namespace mt {
namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 80, kRight = 200, kTop = 44, kBottom = 100;  // plot margins; legend on the right
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string num(double v) { return fixed(v, 1); }

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* color(const ChartSeries& s, size_t index) {
  size_t i = s.color >= 0 ? size_t(s.color) : index;
  return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

// The frame every chart shares: title, y grid with ticks up to `y_max`, category labels, legend.
struct Frame {
  double y_max = 1;
  size_t categories = 1;
  double y(double v) const { return kTop + kPlotH - v / y_max * kPlotH; }
  double x(size_t category) const { return kLeft + (double(category) + 0.5) * kPlotW / double(categories); }
  double slot() const { return kPlotW / double(categories); }
};

// Characters, not bytes: labels carry "×" and "⚠".
size_t glyphs(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Category labels: level when they fit their slot, tilted when neighbours stay a line apart, else
// upright; the chart grows downwards to hold the longest.
enum class LabelTilt { Level, Tilted, Upright };
constexpr double kCharWidth = 7;  // about, at this font size
constexpr double kLineHeight = 14;

LabelTilt label_tilt(double longest, double slot) {
  if (longest * kCharWidth <= slot) return LabelTilt::Level;
  return slot / 2 >= kLineHeight ? LabelTilt::Tilted : LabelTilt::Upright;  // tilted lines lie slot·sin 30° apart
}

double label_depth(LabelTilt tilt, double longest) {
  switch (tilt) {
    case LabelTilt::Level: return 0;
    case LabelTilt::Tilted: return longest * kCharWidth / 2;
    case LabelTilt::Upright: return longest * kCharWidth;
  }
  return 0;
}

std::string open_frame(const ChartSpec& c, Frame& f, double data_max) {
  double step = nice_step(std::max(data_max, 1e-12) / 5);
  f.y_max = step * std::ceil(std::max(data_max, 1e-12) / step);
  f.categories = std::max<size_t>(c.categories.size(), 1);
  int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step)));
  size_t longest = 0;
  for (const auto& label : c.categories) longest = std::max(longest, glyphs(label));
  const LabelTilt tilt = label_tilt(double(longest), f.slot());
  const double height = std::max(kHeight, kTop + kPlotH + 18 + label_depth(tilt, double(longest)) + 36);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{3}</text>\n",
      num(kWidth), num(height), num(kLeft), escape(c.title));
  int ticks = int(std::lround(f.y_max / step));
  for (int k = 0; k <= ticks; ++k) {
    double v = step * k;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#dddddd\"/>\n"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        num(kLeft), num(f.y(v)), num(kLeft + kPlotW), num(kLeft - 6), num(f.y(v) + 4), fixed(v, decimals));
  }
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double y = kTop + kPlotH + 18;
    if (tilt == LabelTilt::Level) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(f.x(i)), num(y),
                         escape(c.categories[i]));
    } else {
      // Upright labels hang from the axis, their middle under the category.
      double x = tilt == LabelTilt::Upright ? f.x(i) + 4 : f.x(i);
      out += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate({3} {0} {1})\">{2}</text>\n",
                         num(x), num(y - 8), escape(c.categories[i]), tilt == LabelTilt::Upright ? -90 : -30);
    }
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"black\"/>\n"
      "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n"
      "<text x=\"18\" y=\"{7}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {7})\">{8}</text>\n",
      num(kLeft), num(kTop + kPlotH), num(kLeft + kPlotW), num(kTop), num(kLeft + kPlotW / 2), num(height - 10),
      escape(c.x_title), num(kTop + kPlotH / 2), escape(c.y_title));
  return out;
}

std::string legend(const ChartSpec& c, bool boxes) {
  std::string out;
  size_t row = 0;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    if (s.name.empty()) continue;
    double y = kTop + 8 + 20 * double(row++);
    double x = kLeft + kPlotW + 16;
    out += boxes ? fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>\n", num(x), num(y - 9),
                               color(s, i))
                 : fmt::format(
                       "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>\n",
                       num(x), num(x + 14), num(y - 4), color(s, i), s.dashed ? " stroke-dasharray=\"5,3\"" : "");
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(x + 20), num(y), escape(s.name));
  }
  return out;
}

double max_value(const ChartSpec& c, bool stacked) {
  double top = 0;
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double sum = 0;
    for (const auto& s : c.series) {
      if (i >= s.values.size() || !s.values[i]) continue;
      double v = *s.values[i] + (i < s.errors.size() ? s.errors[i] : 0);
      sum += *s.values[i];
      top = std::max(top, stacked ? sum : v);
    }
  }
  return top;
}

}  // namespace

double nice_step(double raw) {
  double base = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * base >= raw * (1 - 1e-9)) return m * base;
  }
  return 10 * base;
}

std::string line_chart_svg(const ChartSpec& c) {
  Frame f;
  std::string out = open_frame(c, f, max_value(c, false));
  for (size_t si = 0; si < c.series.size(); ++si) {
    const auto& s = c.series[si];
    std::string points;
    for (size_t i = 0; i < s.values.size() && i < c.categories.size(); ++i) {
      if (s.values[i]) points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(f.x(i)), num(f.y(*s.values[i])));
    }
    if (points.empty()) continue;
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", points,
                       color(s, si), s.dashed ? " stroke-dasharray=\"5,3\"" : "");
    for (size_t i = 0; i < s.values.size() && i < c.categories.size(); ++i) {
      if (!s.values[i] || s.dashed) continue;
      double x = f.x(i), y = f.y(*s.values[i]);
      if (i < s.errors.size() && s.errors[i] > 0) {
        double lo = f.y(std::max(0.0, *s.values[i] - s.errors[i])), hi = f.y(*s.values[i] + s.errors[i]);
        out += fmt::format(
            "<path d=\"M{0},{1} L{0},{2} M{3},{1} L{4},{1} M{3},{2} L{4},{2}\" stroke=\"{5}\" stroke-width=\"1.5\"/>\n",
            num(x), num(lo), num(hi), num(x - 5), num(x + 5), color(s, si));
      }
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>\n", num(x), num(y), color(s, si));
    }
  }
  return out + legend(c, false) + "</svg>\n";
}

std::string bar_chart_svg(const ChartSpec& c, bool stacked) {
  Frame f;
  std::string out = open_frame(c, f, max_value(c, stacked));
  size_t n = std::max<size_t>(c.series.size(), 1);
  double group_w = f.slot() * 0.7;
  double bar_w = stacked ? group_w : group_w / double(n);
  for (size_t i = 0; i < c.categories.size(); ++i) {
    double base = 0;
    for (size_t si = 0; si < c.series.size(); ++si) {
      const auto& s = c.series[si];
      if (i >= s.values.size() || !s.values[i]) continue;
      double v = *s.values[i];
      double x = stacked ? f.x(i) - group_w / 2 : f.x(i) - group_w / 2 + bar_w * double(si);
      double top = f.y(base + v), bottom = f.y(base);
      out +=
          fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {}</title></rect>\n",
                      num(x), num(top), num(bar_w), num(bottom - top), color(s, si), escape(s.name), auto_number(v));
      if (stacked) base += v;
    }
  }
  return out + legend(c, true) + "</svg>\n";
}

}  // namespace mt
