#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "workloads/moe/routing.h"

TEST_CASE("balanced routing gives every expert the same share, hot routing overloads expert 0") {
  mt::RoutingConfig balanced;
  const auto b = mt::route_tokens(balanced, 1, 4, 400);
  CHECK(b.per_expert == std::vector<int64_t>{100, 100, 100, 100});
  CHECK(b.dropped == 0);

  mt::RoutingConfig hot;
  hot.kind = "hot";
  hot.hot_fraction = 0.75;
  const auto h = mt::route_tokens(hot, 2, 4, 400);
  CHECK(h.per_expert[0] == 300);
  CHECK(h.per_expert[1] + h.per_expert[2] + h.per_expert[3] == 100);
  CHECK(std::abs(h.per_expert[1] - h.per_expert[3]) <= 1);
  // Assignments are grouped by expert and cover every token exactly once.
  std::vector<int> seen(400, 0);
  int last_expert = 0;
  for (const auto& a : h.assignments) {
    CHECK(a.expert >= last_expert);
    last_expert = a.expert;
    ++seen[static_cast<std::size_t>(a.token)];
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

TEST_CASE("top-k routing respects each expert's capacity and counts what it drops") {
  mt::RoutingConfig topk;
  topk.kind = "topk";
  topk.top_k = 2;
  topk.capacity_factor = 0.5;  // room for half the assignments
  const int64_t tokens = 512;
  const auto r = mt::route_tokens(topk, 0, 4, tokens);
  const int64_t capacity = static_cast<int64_t>(std::ceil(0.5 * tokens * 2 / 4));
  for (auto n : r.per_expert) CHECK(n <= capacity);
  const int64_t kept = std::accumulate(r.per_expert.begin(), r.per_expert.end(), int64_t{0});
  CHECK(kept + r.dropped == tokens * 2);
  CHECK(r.dropped > 0);
  // Each token's kept weights come from a softmax over its chosen experts: at most 1 in total.
  std::vector<float> total(tokens, 0.0f);
  for (const auto& a : r.assignments) total[static_cast<std::size_t>(a.token)] += a.weight;
  CHECK(std::all_of(total.begin(), total.end(), [](float w) { return w <= 1.0f + 1e-6f; }));
}
