#include <doctest/doctest.h>

#include "training/optim/lr_schedule.h"

TEST_CASE("constant schedule warms up linearly, then holds") {
  mt::LrSchedule s;
  s.base = 1.0;
  s.warmup_steps = 4;
  CHECK(mt::learning_rate_at(s, 0) == doctest::Approx(0.25));
  CHECK(mt::learning_rate_at(s, 3) == doctest::Approx(1.0));
  CHECK(mt::learning_rate_at(s, 100) == doctest::Approx(1.0));
}

TEST_CASE("cosine schedule decays from base to min over the decay steps") {
  mt::LrSchedule s;
  s.kind = "cosine";
  s.base = 1.0;
  s.min = 0.1;
  s.warmup_steps = 2;
  s.decay_steps = 10;
  CHECK(mt::learning_rate_at(s, 2) == doctest::Approx(1.0));
  CHECK(mt::learning_rate_at(s, 7) == doctest::Approx(0.55));
  CHECK(mt::learning_rate_at(s, 12) == doctest::Approx(0.1));
  CHECK(mt::learning_rate_at(s, 50) == doctest::Approx(0.1));
}
