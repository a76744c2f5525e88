#include "report/render/timeline_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_html.h"
#include "report/render/svg_chart.h"

namespace mt {
namespace {

constexpr double kWidth = 720, kTop = 44, kRowHeight = 22, kRight = 24, kCharWidth = 7;
const char* const kKindColours[] = {"#2ca02c", "#d62728", "#ff7f0e", "#7f7f7f", "#1f77b4"};

std::string num(double v) { return fixed(v, 1); }

size_t glyphs(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

std::string timeline_svg(const TimelineSpec& spec) {
  size_t longest = 0;
  double total = 0;
  for (const auto& row : spec.rows) {
    longest = std::max(longest, glyphs(row.name));
    double sum = 0;
    for (const auto& box : row.boxes) sum += std::max(box.seconds, 0.0);
    total = std::max(total, sum);
  }
  const double left = std::max(80.0, double(longest) * kCharWidth + 16);
  const double plot_w = kWidth - left - kRight;
  const double step = nice_step(std::max(total, 1e-9) / 6);
  const double span = step * std::ceil(std::max(total, 1e-9) / step);
  const double plot_h = kRowHeight * double(spec.rows.size());
  const double axis_y = kTop + plot_h;
  const double legend_y = axis_y + 18 + 36;
  const double height = std::ceil(legend_y + 16);
  auto x = [&](double s) { return left + s / span * plot_w; };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
      num(kWidth), num(height), html_escape(spec.title));
  for (int k = 0; k * step <= span + 1e-9; ++k) {
    const double s = k * step;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#dddddd\"/>\n"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        num(x(s)), num(kTop), num(axis_y), num(axis_y + 16), auto_number(s));
  }
  for (size_t r = 0; r < spec.rows.size(); ++r) {
    const auto& row = spec.rows[r];
    const double y = kTop + kRowHeight * double(r);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(left - 8),
                       num(y + kRowHeight / 2 + 4), html_escape(row.name));
    double at = 0;
    for (const auto& box : row.boxes) {
      const double x0 = x(at), x1 = x(at + std::max(box.seconds, 0.0));
      const char* colour = kKindColours[size_t(std::max(box.kind, 0)) % std::size(kKindColours)];
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"white\"><title>{}</title></rect>\n",
          num(x0), num(y + 2), num(std::max(x1 - x0, 0.5)), num(kRowHeight - 4), colour, html_escape(box.detail));
      if (double(glyphs(box.label)) * 6.5 + 6 <= x1 - x0) {
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"white\">{}</text>\n",
                           num((x0 + x1) / 2), num(y + kRowHeight / 2 + 4), html_escape(box.label));
      }
      at += std::max(box.seconds, 0.0);
    }
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n"
      "<text x=\"{3}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
      num(left), num(axis_y), num(left + plot_w), num(left + plot_w / 2), num(axis_y + 36), html_escape(spec.x_title));
  double lx = left;
  for (size_t k = 0; k < spec.kinds.size(); ++k) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>\n<text x=\"{}\" y=\"{}\">{}</text>\n",
        num(lx), num(legend_y - 9), kKindColours[k % std::size(kKindColours)], num(lx + 20), num(legend_y),
        html_escape(spec.kinds[k]));
    lx += 20 + double(glyphs(spec.kinds[k])) * kCharWidth + 18;
  }
  return out + "</svg>\n";
}

}  // namespace mt
