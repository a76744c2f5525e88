#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "training/profile/operator_stats.h"

namespace {

const mt::OperatorStat& find(const std::vector<mt::OperatorStat>& stats, const std::string& name) {
  for (const auto& s : stats) {
    if (s.name == name) return s;
  }
  FAIL("no operator " << name);
  return stats.front();
}

}  // namespace

TEST_CASE("self time is a call's duration less the calls directly inside it; total time keeps them") {
  // linear [0, 10 ms) holds t [0, 1) and addmm [1, 9), which holds copy_ [2, 3); then relu [10, 12).
  constexpr int64_t ms = 1'000'000;
  const auto stats = mt::operator_stats({{"aten::relu", 1, 10 * ms, 12 * ms},
                                         {"aten::addmm", 1, 1 * ms, 9 * ms},
                                         {"aten::linear", 1, 0, 10 * ms},
                                         {"aten::copy_", 1, 2 * ms, 3 * ms},
                                         {"aten::t", 1, 0, 1 * ms}});
  CHECK(find(stats, "aten::linear").self_ms == doctest::Approx(1));
  CHECK(find(stats, "aten::linear").total_ms == doctest::Approx(10));
  CHECK(find(stats, "aten::addmm").self_ms == doctest::Approx(7));
  CHECK(find(stats, "aten::copy_").self_ms == doctest::Approx(1));
  CHECK(find(stats, "aten::t").self_ms == doctest::Approx(1));  // starts with linear, nested in it
  CHECK(find(stats, "aten::relu").self_ms == doctest::Approx(2));
  // Largest self time first, and the self times add up to the time spent in operators.
  REQUIRE(stats.size() == 5);
  CHECK(stats[0].name == "aten::addmm");
  CHECK(stats[1].name == "aten::relu");
  double self = 0;
  for (const auto& s : stats) self += s.self_ms;
  CHECK(self == doctest::Approx(12));
}

TEST_CASE("calls on different threads never nest, and repeated calls add up") {
  constexpr int64_t us = 1'000;
  const auto stats = mt::operator_stats({{"aten::mm", 1, 0, 100 * us},
                                         {"aten::add_", 2, 10 * us, 20 * us},  // another thread, same time
                                         {"aten::add_", 1, 200 * us, 230 * us},
                                         {"aten::mm", 1, 300 * us, 400 * us}});
  CHECK(find(stats, "aten::mm").calls == 2);
  CHECK(find(stats, "aten::mm").self_ms == doctest::Approx(0.2));
  CHECK(find(stats, "aten::add_").calls == 2);
  CHECK(find(stats, "aten::add_").self_ms == doctest::Approx(0.04));
}

TEST_CASE("a call overrunning its parent by clock jitter takes only the overlap from it") {
  const auto stats = mt::operator_stats({{"outer", 1, 0, 100}, {"inner", 1, 40, 130}});
  CHECK(find(stats, "outer").self_ms == doctest::Approx(40 / 1e6));
  CHECK(find(stats, "inner").self_ms == doctest::Approx(90 / 1e6));
}

TEST_CASE("the summary keeps the top operators and the recorded time of all of them") {
  const auto stats =
      mt::operator_stats({{"a", 1, 0, 3'000'000}, {"b", 1, 3'000'000, 5'000'000}, {"c", 1, 5'000'000, 6'000'000}});
  const auto summary = mt::operator_summary(stats, 2);
  CHECK(summary["recorded_ms"].get<double>() == doctest::Approx(6));
  CHECK(summary["operators"] == 3);
  REQUIRE(summary["top"].size() == 2);
  CHECK(summary["top"][0]["name"] == "a");
  CHECK(summary["top"][1]["self_ms"].get<double>() == doctest::Approx(2));
  CHECK(mt::operator_summary({}, 5)["top"].empty());
}
