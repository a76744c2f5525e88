#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "workloads/moe/round_trip.h"
#include "workloads/moe/routing.h"

namespace {

// A stand-in for the exchange the MoE benchmark runs (counts, variable all-to-all dispatch, the
// expert stamping what it received, reverse all-to-all combine), over plain vectors: the seam the
// oracle must guard. `split[r]` is the table rank r sends by; `combine_from_last` makes every
// rank lay the returning segments out in reverse rank order, as a mixed-up receive side would.
std::vector<std::vector<int32_t>> round_trip(const std::vector<mt::Routing>& routings,
                                             const std::vector<std::vector<int64_t>>& split, int64_t tokens,
                                             bool combine_from_last = false) {
  const int world = static_cast<int>(routings.size());
  // Dispatch: rank r's segment for expert p, in the order r's send buffer holds them.
  std::vector<std::vector<std::vector<int32_t>>> inbox(world, std::vector<std::vector<int32_t>>(world));
  for (int r = 0; r < world; ++r) {
    std::size_t at = 0;
    for (int p = 0; p < world; ++p) {
      for (int64_t i = 0; i < split[r][p]; ++i, ++at) {
        inbox[p][r].push_back(mt::token_id(r, tokens, routings[r].assignments[at].token));
      }
    }
  }
  // The expert stamps each token; combine sends every segment back to where it came from.
  std::vector<std::vector<int32_t>> back(world);
  for (int r = 0; r < world; ++r) {
    for (int k = 0; k < world; ++k) {
      const int p = combine_from_last ? world - 1 - k : k;
      for (int32_t id : inbox[p][r]) back[r].push_back(mt::stamp(id, p, world));
    }
  }
  return back;
}

std::vector<mt::Routing> routings_for(const mt::RoutingConfig& config, int world, int64_t tokens) {
  std::vector<mt::Routing> out;
  for (int r = 0; r < world; ++r) out.push_back(mt::route_tokens(config, r, world, tokens));
  return out;
}

std::vector<std::vector<int64_t>> split_tables(const std::vector<mt::Routing>& routings) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& r : routings) out.push_back(r.per_expert);
  return out;
}

mt::RoundTripErrors total_errors(const std::vector<mt::Routing>& routings, int64_t tokens,
                                 const std::vector<std::vector<int32_t>>& back) {
  mt::RoundTripErrors total;
  const int world = static_cast<int>(routings.size());
  for (int r = 0; r < world; ++r) {
    const auto e = mt::check_round_trip(routings[r], r, tokens, world, back[r]);
    total.astray += e.astray;
    total.misrouted += e.misrouted;
  }
  return total;
}

}  // namespace

TEST_CASE("a faithful exchange passes the MoE oracle, whatever the routing") {
  const int64_t tokens = 96;
  for (const char* kind : {"balanced", "hot", "topk"}) {
    mt::RoutingConfig config;
    config.kind = kind;
    config.top_k = 2;
    config.capacity_factor = 0.75;  // top-k drops some: the oracle must not count them
    const auto routings = routings_for(config, 4, tokens);
    const auto errors = total_errors(routings, tokens, round_trip(routings, split_tables(routings), tokens));
    CAPTURE(kind);
    CHECK(errors.ok());
  }
}

TEST_CASE("a split table that disagrees with the assignments is caught as misrouted tokens") {
  mt::RoutingConfig hot;
  hot.kind = "hot";
  const int64_t tokens = 64;
  const auto routings = routings_for(hot, 4, tokens);
  auto split = split_tables(routings);
  REQUIRE(split[1][1] > 0);
  --split[1][1];  // rank 1 sends its last token for expert 1 to expert 2 instead
  ++split[1][2];
  const auto errors = total_errors(routings, tokens, round_trip(routings, split, tokens));
  CHECK(errors.misrouted == 1);
  CHECK(errors.astray == 0);  // it came home to its slot, computed by the wrong expert
}

TEST_CASE("segments laid out in the wrong order on the way back are caught as astray tokens") {
  mt::RoutingConfig balanced;
  const int64_t tokens = 32;
  const auto routings = routings_for(balanced, 3, tokens);
  const auto errors = total_errors(routings, tokens, round_trip(routings, split_tables(routings), tokens, true));
  CHECK(errors.astray > 0);
  CHECK(errors.misrouted > 0);
}

TEST_CASE("stamps hold the id and the expert, within the bound the benchmark enforces") {
  const int world = 8;
  const int64_t tokens = mt::max_tokens_per_rank(world);
  const int32_t last = mt::token_id(world - 1, tokens, tokens - 1);
  const int32_t s = mt::stamp(last, world - 1, world);
  CHECK(s / world == last);
  CHECK(s % world == world - 1);
  mt::Routing one;
  one.assignments = {{0, 1, 1.0f}};
  one.per_expert = {0, 1};
  CHECK_THROWS(mt::check_round_trip(one, 0, 4, 2, {}));
}
