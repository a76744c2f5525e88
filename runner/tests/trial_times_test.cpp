// The ETA of a campaign: each trial expected to take what its configuration, else its study at
// its scale, else every trial so far took.
#include <doctest/doctest.h>

#include "run/trial_times.h"

using namespace mt;

TEST_CASE("a trial not yet run is expected to take what its kind took") {
  // Two rounds of three configurations: s at 1 rank, s at 4 ranks (two of them), in run order.
  const std::vector<TrialTimes::Kind> kinds = {{"a", "s/1"}, {"b", "s/4"}, {"c", "s/4"},
                                               {"a", "s/1"}, {"b", "s/4"}, {"c", "s/4"}};
  TrialTimes times(kinds.size(), kinds);
  CHECK_FALSE(times.left(0, 0).has_value());  // nothing timed yet
  times.record(0, 10);
  CHECK(*times.expected(1) == 10);  // no 4-rank trial timed yet: the mean so far
  times.record(1, 40);
  CHECK(*times.expected(2) == 40);  // another 4-rank configuration of the study
  CHECK(*times.expected(3) == 10);  // its own configuration's earlier repeat
  // Trial 2 ran 15 s of its expected 40; then 10 + 40 + 40 more.
  CHECK(*times.left(2, 15) == doctest::Approx(25 + 10 + 40 + 40));
  // A trial past its expected time is expected to end now.
  CHECK(*times.left(2, 100) == doctest::Approx(10 + 40 + 40));
  times.record(2, 50);
  CHECK(*times.expected(5) == 50);
  CHECK(*times.left(6, 0) == 0);
}

TEST_CASE("without the plan's kinds every trial is expected to take the mean") {
  TrialTimes times(4, {});
  times.record(0, 10);
  times.record(1, 30);
  CHECK(*times.expected(2) == 20);
  CHECK(*times.left(2, 5) == doctest::Approx(15 + 20));
}
