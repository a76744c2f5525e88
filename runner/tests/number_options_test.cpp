#include <doctest/doctest.h>

#include <string>

#include "commands/number_options.h"

namespace mt {
namespace {

// What the validator says of `input`: "" when it takes it.
std::string verdict(const CLI::Validator& check, std::string input) { return check(input); }

}  // namespace

TEST_CASE("a number flag takes finite numbers within its bounds, and nothing else") {
  const CLI::Validator seconds = number_from_to(0, 3600);
  for (const char* taken : {"0", "3600", "2.5", "1e3"}) {
    CAPTURE(std::string(taken));
    CHECK(verdict(seconds, taken).empty());
  }
  // NaN passes any comparison-based range: every comparison with it is false.
  for (const char* refused : {"nan", "NaN", "inf", "-inf", "-0.5", "3600.5", "1e400", "abc", "5s", ""}) {
    CAPTURE(std::string(refused));
    CHECK(verdict(seconds, refused) == "'" + std::string(refused) + "' is not a number from 0 to 3600");
  }
  CHECK(verdict(number_from_to(0.1, 600), "0.05") == "'0.05' is not a number from 0.1 to 600");
}

TEST_CASE("a whole-number flag takes whole numbers within its bounds, and nothing else") {
  const CLI::Validator attempt = whole_number_from_to(1, 2147483647);
  CHECK(verdict(attempt, "1").empty());
  CHECK(verdict(attempt, "2147483647").empty());
  for (const char* refused : {"0", "-1", "2147483648", "99999999999999999999", "1.5", "1e3", "nan", "two", ""}) {
    CAPTURE(std::string(refused));
    CHECK(verdict(attempt, refused) == "'" + std::string(refused) + "' is not a whole number from 1 to 2147483647");
  }
}

}  // namespace mt
