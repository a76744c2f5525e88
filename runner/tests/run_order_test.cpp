#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "experiment/experiment_loader.h"
#include "experiment/run_order.h"
#include "experiment_text.h"

using namespace mt;
using mt::testing::load_errors;

TEST_CASE("a shuffled round is a permutation fixed by its seed and round") {
  auto a = shuffled_round(10, 42, 0);
  CHECK(a == shuffled_round(10, 42, 0));
  CHECK(a != shuffled_round(10, 43, 0));
  CHECK(a != shuffled_round(10, 42, 1));
  std::vector<std::uint64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint64_t i = 0; i < 10; ++i) CHECK(sorted[i] == i);
  // The exact permutation is part of the format: the same seed runs the same order everywhere.
  CHECK(shuffled_round(5, 1, 0) == shuffled_round(5, 1, 0));
  std::mt19937_64 rng(7);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 200; ++i) seen.insert(uniform_below(rng, 3));
  CHECK(seen == std::set<std::uint64_t>{0, 1, 2});
  CHECK(order_text("shuffled", 9) == "shuffled (seed 9)");
  CHECK(order_text("interleaved", 9) == "interleaved");
}

TEST_CASE("order and seed are validated with the other keys") {
  const std::string head = "name: x\n";
  const std::string study = "studies:\n  - name: s\n    workload: command\n    command: [echo, 1]\n";
  CHECK(load_errors(head + "order: random\n" + study) == "unknown order 'random' (interleaved or shuffled)\n");
  CHECK(load_errors(head + "order: shuffled\n" + study) ==
        "order: shuffled needs a 'seed' (an integer), so the order can be run again\n");
  CHECK(load_errors(head + "seed: 3\n" + study) == "seed applies only to order: shuffled\n");
  CHECK(load_errors(head + "order: shuffled\nseed: 3\n" + study).empty());
}
