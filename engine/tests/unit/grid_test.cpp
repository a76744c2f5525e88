#include <doctest/doctest.h>

#include <stdexcept>

#include "workloads/groups/grid.h"

TEST_CASE("the mapping order decides which ranks share a group") {
  mt::Grid grid;
  grid.size = {2, 2, 2};  // tp, pp, dp
  grid.order = mt::parse_order("tp-pp-dp");
  CHECK(grid.group(0, mt::GridDim::tp) == std::vector<int>{0, 1});
  CHECK(grid.group(0, mt::GridDim::pp) == std::vector<int>{0, 2});
  CHECK(grid.group(5, mt::GridDim::dp) == std::vector<int>{1, 5});
  grid.order = mt::parse_order("dp-pp-tp");
  CHECK(grid.group(0, mt::GridDim::tp) == std::vector<int>{0, 4});
  CHECK(grid.group(0, mt::GridDim::dp) == std::vector<int>{0, 1});
  // Every rank sits in exactly one group per dimension, named by the same colour.
  for (int rank = 0; rank < grid.world(); ++rank)
    for (int member : grid.group(rank, mt::GridDim::pp))
      CHECK(grid.color(member, mt::GridDim::pp) == grid.color(rank, mt::GridDim::pp));
  CHECK(grid.rank_of(grid.coordinates(6)) == 6);
}

TEST_CASE("a mapping order names each dimension once") {
  CHECK_THROWS_WITH(mt::parse_order("tp-tp-dp"), "--order 'tp-tp-dp': name tp, pp and dp once each, fastest first");
  CHECK_THROWS_WITH(mt::parse_order("tp-xx-dp"), "--order 'tp-xx-dp': unknown dimension 'xx' (tp, pp, dp)");
}
