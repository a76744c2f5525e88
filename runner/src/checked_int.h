#pragma once
// A double converted to an integer type only where it fits: converting one beyond the type's range
// (a count of 1e300 in a result a workload wrote) is undefined behaviour. Truncates toward zero, as
// the conversion does.
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

namespace mt {

template <typename Int>
std::optional<Int> checked_integer(double value) {
  // The bounds as doubles: the upper one rounds up to a power of two for 64 bits, hence `<`.
  constexpr double low = double(std::numeric_limits<Int>::min()), high = double(std::numeric_limits<Int>::max());
  if (!(value >= low && value < high + 1.0)) return std::nullopt;
  return Int(value);
}

inline std::optional<int> checked_int(double value) { return checked_integer<int>(value); }
inline std::optional<std::int64_t> checked_int64(double value) { return checked_integer<std::int64_t>(value); }

// A JSON integer that fits an int (a step or a rank a program wrote); nullopt for anything else:
// 4294967308 must not read as 12.
inline std::optional<int> json_int(const nlohmann::json& value) {
  return value.is_number_integer() ? checked_int(value.get<double>()) : std::nullopt;
}

}  // namespace mt
