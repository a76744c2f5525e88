#include <doctest/doctest.h>

#include <algorithm>

#include "training/strategy/buckets.h"

TEST_CASE("buckets take parameters in reverse order and respect the cap") {
  const std::vector<std::size_t> sizes = {400, 100, 100, 100, 250, 50};
  const auto buckets = mt::assign_buckets(sizes, 300);

  std::vector<std::size_t> order;
  for (const auto& b : buckets) {
    std::size_t total = 0;
    for (auto i : b.parameters) total += sizes[i];
    CHECK(total == b.bytes);
    // Only a lone parameter may exceed the cap.
    CHECK((b.bytes <= 300 || b.parameters.size() == 1));
    order.insert(order.end(), b.parameters.begin(), b.parameters.end());
  }
  // Every parameter exactly once, in reverse registration order.
  CHECK(order == std::vector<std::size_t>{5, 4, 3, 2, 1, 0});
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[0].parameters == std::vector<std::size_t>{5, 4});
  CHECK(buckets[1].parameters == std::vector<std::size_t>{3, 2, 1});
  CHECK(buckets[2].parameters == std::vector<std::size_t>{0});
}

TEST_CASE("a large cap gives one bucket; no parameters give none") {
  CHECK(mt::assign_buckets({10, 20, 30}, 1 << 20).size() == 1);
  CHECK(mt::assign_buckets({}, 100).empty());
}

TEST_CASE("bucket cap is in MiB") {
  CHECK(mt::bucket_cap_bytes(25) == 25u * 1024 * 1024);
  CHECK(mt::bucket_cap_bytes(0.5) == 512u * 1024);
}

TEST_CASE("the first bucket has its own, smaller cap") {
  const std::vector<std::size_t> sizes = {100, 100, 100, 100, 100, 100};
  const auto buckets = mt::assign_buckets(sizes, 400, 100);
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[0].parameters == std::vector<std::size_t>{5});
  CHECK(buckets[1].parameters == std::vector<std::size_t>{4, 3, 2, 1});
  CHECK(buckets[2].parameters == std::vector<std::size_t>{0});
}
