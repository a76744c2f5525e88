#include "report/render/cells.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mt {

const char* const kCellLegend =
    "⚠n<3: fewer than three successful repeats, so the spread is not trustworthy. "
    "⚑k: k values are outliers (0.6745·|x − median| / MAD > 3.5, judged from 5 values up); they are kept in "
    "the statistics.";

const char* const kOversubscribedLegend =
    "⚠oversubscribed: more ranks × threads ran on a node than it has cores, so the ranks took turns on them; "
    "such a row measures the machine.";
const char* const kOversubscribedScalingNote = "Its scaling efficiency is not shown.";
const char* const kSameCoresLegend =
    "⚠same cores: the row ran on no more cores than its 1-rank baseline, so ideal scaling is 1×, not ranks×; "
    "its efficiency says how well splitting the same cores into ranks pays, not how the strategy scales.";

std::string fixed(double value, int decimals) {
  // A result can hold any double: NaN's sign means nothing, and 1e300 in fixed notation is 301 digits.
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::fabs(value) >= kFixedLimit) return fmt::format("{:.4g}", value);
  // fmt refuses a negative precision; one computed from a non-finite value can come out so.
  std::string out = fmt::format("{:.{}f}", value, std::max(decimals, 0));
  if (out.find_first_not_of("-0.") == std::string::npos && out[0] == '-') out.erase(0, 1);
  return out;
}

std::string auto_number(double value) {
  if (value == std::floor(value) && std::fabs(value) < kFixedLimit) return fixed(value, 0);  // counts stay counts
  return fixed(value, auto_decimals(value));
}

std::string percent(double ratio, int decimals) { return fixed(100 * ratio, decimals) + " %"; }

std::string signed_percent(double ratio, int decimals) {
  std::string text = fixed(100 * ratio, decimals);
  return (text[0] == '-' || text.find_first_not_of("0.") == std::string::npos ? text : "+" + text) + " %";
}

std::string mean_std_cell(const Summary& s, int decimals) {
  if (s.n == 0) return "-";
  std::string out = s.n == 1 ? fixed(s.mean, decimals) : fixed(s.mean, decimals) + " ± " + fixed(s.std, decimals);
  if (s.n < kRepeatsForSpread) out += std::string(" ") + kFewRepeatsMark;
  if (!s.outliers.empty()) out += fmt::format(" {}{}", kOutlierMark, s.outliers.size());
  return out;
}

std::string interval_cell(const std::optional<Interval>& ci, int decimals) {
  if (!ci) return "-";
  return "[" + fixed(ci->low, decimals) + ", " + fixed(ci->high, decimals) + "]";
}

std::string optional_percent(const std::optional<double>& ratio) { return ratio ? percent(*ratio) : "-"; }

std::string short_id(const std::string& identity) { return identity.substr(0, 12); }

std::string constant_or_mean(const std::vector<double>& values) {
  if (values.empty()) return "-";
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; }))
    return auto_number(values[0]);
  return mean_std_cell(summarize(values), 2);
}

}  // namespace mt
