#include <doctest/doctest.h>

#include "training/profile/intervals.h"

using mt::Interval;

TEST_CASE("unions merge overlapping and touching intervals and drop empty ones") {
  const auto m = mt::merged({{5, 7}, {0, 2}, {1, 3}, {3, 4}, {6, 6}, {9, 8}});
  REQUIRE(m.size() == 2);
  CHECK(m[0].start == 0);
  CHECK(m[0].end == 4);
  CHECK(m[1].start == 5);
  CHECK(m[1].end == 7);
  CHECK(mt::union_length({{0, 2}, {1, 3}, {10, 11}}) == 4);
}

TEST_CASE("intersection of two unions, and exposure of communication") {
  // compute: [0,10) and [20,30); communication: [5,15) and [25,40)
  const std::vector<Interval> compute = {{0, 10}, {20, 30}}, comm = {{5, 15}, {25, 40}};
  CHECK(mt::intersection_length(comm, compute) == 10);  // [5,10) + [25,30)
  const auto e = mt::exposure(comm, compute);
  CHECK(e.communication_us == 25);
  CHECK(e.compute_us == 20);
  CHECK(e.overlap_us == 10);
  CHECK(e.exposed_us == 15);
  CHECK(e.overlap_fraction == doctest::Approx(0.4));
}

TEST_CASE("fully hidden, fully exposed, and no communication at all") {
  CHECK(mt::exposure({{2, 4}}, {{0, 10}}).exposed_us == 0);
  CHECK(mt::exposure({{2, 4}}, {{0, 10}}).overlap_fraction == 1);
  CHECK(mt::exposure({{10, 14}}, {{0, 10}}).overlap_fraction == 0);  // touching is not overlapping
  CHECK(mt::exposure({}, {{0, 10}}).overlap_fraction == 1);
  // Overlapping communication intervals are counted once.
  CHECK(mt::exposure({{0, 6}, {4, 8}}, {}).communication_us == 8);
}

TEST_CASE("clipping to a step's window") {
  const auto c = mt::clipped({{0, 5}, {8, 12}, {20, 30}}, {4, 10});
  REQUIRE(c.size() == 2);
  CHECK(c[0].start == 4);
  CHECK(c[0].end == 5);
  CHECK(c[1].start == 8);
  CHECK(c[1].end == 10);
}

TEST_CASE("computation minus waiting: what a wait cuts out is exposed communication") {
  const auto rest = mt::subtracted({{0, 10}, {20, 30}}, {{2, 4}, {8, 22}, {29, 40}});
  REQUIRE(rest.size() == 3);
  CHECK(rest[0].start == 0);
  CHECK(rest[0].end == 2);
  CHECK(rest[1].start == 4);
  CHECK(rest[1].end == 8);
  CHECK(rest[2].start == 22);
  CHECK(rest[2].end == 29);
  // A collective [5, 12) while computing [0, 10) but waiting [8, 12): 3 of its 7 us hidden.
  const auto e = mt::exposure({{5, 12}}, mt::subtracted({{0, 12}}, {{8, 12}}));
  CHECK(e.overlap_us == 3);
  CHECK(e.exposed_us == 4);
}
