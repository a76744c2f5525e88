// The one-line text plot `mtrun show` draws a trial's step times with.
#include <doctest/doctest.h>

#include "sparkline.h"

using namespace mt;

TEST_CASE("a sparkline runs from the lowest block to the highest") {
  CHECK(sparkline({1, 2, 3, 4, 5, 6, 7, 8}) == "▁▂▃▄▅▆▇█");
  CHECK(sparkline({10, 10, 80, 10}) == "▁▁█▁");
  CHECK(sparkline({5, 5, 5}) == "▁▁▁");
  CHECK(sparkline({}).empty());
}

TEST_CASE("a long series is cut into runs, each drawn at its largest, so a slow step stays visible") {
  std::vector<double> steps(100, 10.0);
  steps[57] = 50;
  const std::string line = sparkline(steps, 10);
  CHECK(line == "▁▁▁▁▁█▁▁▁▁");
}
