#include "commands/number_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "table_cell.h"

namespace mt {

CLI::Validator number_from_to(double low, double high) {
  const std::string numbers = fmt::format("a number from {:g} to {:g}", low, high);
  return CLI::Validator(
      [low, high, numbers](std::string& input) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double value = std::strtod(input.c_str(), &end);
        const bool whole_text = !input.empty() && end == input.c_str() + input.size();
        if (whole_text && errno == 0 && std::isfinite(value) && value >= low && value <= high) return "";
        return fmt::format("'{}' is not {}", escape_control_characters(input), numbers);
      },
      fmt::format("{:g} to {:g}", low, high));
}

CLI::Validator whole_number_from_to(std::int64_t low, std::int64_t high) {
  const std::string numbers = fmt::format("a whole number from {} to {}", low, high);
  return CLI::Validator(
      [low, high, numbers](std::string& input) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(input.c_str(), &end, 10);
        const bool whole_text = !input.empty() && end == input.c_str() + input.size();
        if (whole_text && errno == 0 && value >= low && value <= high) return "";
        return fmt::format("'{}' is not {}", escape_control_characters(input), numbers);
      },
      fmt::format("{} to {}", low, high));
}

}  // namespace mt
