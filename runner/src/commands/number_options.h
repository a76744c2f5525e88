#pragma once
// Checks for numeric flags. CLI11's own ranges let "nan" through (every comparison with it is
// false), and state an open bound as its 309 digits; these take a finite number within the bounds
// and nothing else, and say which numbers they take.
#include <cstdint>

#include <CLI/CLI.hpp>

namespace mt {

// A number from `low` to `high` (both included): "--settle: 'nan' is not a number from 0 to 3600".
CLI::Validator number_from_to(double low, double high);

// A whole number from `low` to `high`: "--attempt: '0' is not a whole number from 1 to 2147483647".
CLI::Validator whole_number_from_to(std::int64_t low, std::int64_t high);

}  // namespace mt
