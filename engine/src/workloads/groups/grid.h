// A TP × PP × DP grid of ranks for a mapping order: which dimension varies fastest along the rank
// numbers decides which ranks share a group (and, on real clusters, a node). Torch-free.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace mt {

enum class GridDim { tp = 0, pp = 1, dp = 2 };

struct Grid {
  std::array<int, 3> size{1, 1, 1};                                     // by GridDim
  std::array<GridDim, 3> order{GridDim::tp, GridDim::pp, GridDim::dp};  // fastest first

  int world() const { return size[0] * size[1] * size[2]; }
  std::array<int, 3> coordinates(int rank) const;
  int rank_of(const std::array<int, 3>& coordinates) const;
  // The ranks sharing every coordinate but `dim` with `rank`, by their coordinate along `dim`.
  std::vector<int> group(int rank, GridDim dim) const;
  // Split colour of `rank`'s group along `dim`: equal exactly for the members of one group.
  int color(int rank, GridDim dim) const;
};

const char* dim_name(GridDim dim);
// "tp-pp-dp" (fastest first); throws std::invalid_argument naming what is wrong.
std::array<GridDim, 3> parse_order(const std::string& text);

}  // namespace mt
