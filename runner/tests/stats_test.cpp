#include <doctest/doctest.h>

#include "stats.h"
#include "summary.h"

using namespace mt;

TEST_CASE("mean and sample standard deviation match hand-computed values") {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sample variance 32/7
  std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9};
  CHECK(mean(xs) == doctest::Approx(5.0));
  CHECK(sample_std(xs) == doctest::Approx(2.1380899));
  CHECK(sample_std({3.0}) == 0.0);
  CHECK(mean({}) == 0.0);
}

TEST_CASE("mean ± std formatting") {
  CHECK(format_mean_std({10, 12}, 1) == "11.0 ± 1.4");
  CHECK(format_mean_std({}, 1) == "-");
}
