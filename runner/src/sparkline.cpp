#include "sparkline.h"

#include <algorithm>
#include <array>

namespace mt {

std::string sparkline(const std::vector<double>& values, std::size_t width) {
  static const std::array<const char*, 8> kLevels = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (values.empty() || width == 0) return "";
  std::vector<double> runs;
  const std::size_t n = std::min(width, values.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t first = i * values.size() / n, last = (i + 1) * values.size() / n;
    runs.push_back(*std::max_element(values.begin() + long(first), values.begin() + long(last)));
  }
  const auto [low, high] = std::minmax_element(runs.begin(), runs.end());
  std::string out;
  for (double v : runs) {
    const std::size_t level = *high > *low ? std::min<std::size_t>(7, std::size_t((v - *low) / (*high - *low) * 8)) : 0;
    out += kLevels[level];
  }
  return out;
}

}  // namespace mt
