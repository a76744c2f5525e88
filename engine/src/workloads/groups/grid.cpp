#include "workloads/groups/grid.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace mt {

const char* dim_name(GridDim dim) {
  switch (dim) {
    case GridDim::tp: return "tp";
    case GridDim::pp: return "pp";
    case GridDim::dp: return "dp";
  }
  return "?";
}

std::array<GridDim, 3> parse_order(const std::string& text) {
  std::array<GridDim, 3> order{};
  std::stringstream in(text);
  std::string part;
  int i = 0;
  while (std::getline(in, part, '-')) {
    if (i == 3) throw std::invalid_argument("--order '" + text + "': three dimensions, e.g. tp-pp-dp");
    if (part == "tp") order[i] = GridDim::tp;
    else if (part == "pp") order[i] = GridDim::pp;
    else if (part == "dp") order[i] = GridDim::dp;
    else throw std::invalid_argument("--order '" + text + "': unknown dimension '" + part + "' (tp, pp, dp)");
    ++i;
  }
  if (i != 3 || order[0] == order[1] || order[1] == order[2] || order[0] == order[2])
    throw std::invalid_argument("--order '" + text + "': name tp, pp and dp once each, fastest first");
  return order;
}

std::array<int, 3> Grid::coordinates(int rank) const {
  std::array<int, 3> c{};
  for (GridDim d : order) {
    const auto i = static_cast<std::size_t>(d);
    c[i] = rank % size[i];
    rank /= size[i];
  }
  return c;
}

int Grid::rank_of(const std::array<int, 3>& c) const {
  int rank = 0, stride = 1;
  for (GridDim d : order) {
    const auto i = static_cast<std::size_t>(d);
    rank += c[i] * stride;
    stride *= size[i];
  }
  return rank;
}

std::vector<int> Grid::group(int rank, GridDim dim) const {
  auto c = coordinates(rank);
  std::vector<int> members;
  for (int k = 0; k < size[static_cast<std::size_t>(dim)]; ++k) {
    c[static_cast<std::size_t>(dim)] = k;
    members.push_back(rank_of(c));
  }
  return members;
}

int Grid::color(int rank, GridDim dim) const {
  auto c = coordinates(rank);
  c[static_cast<std::size_t>(dim)] = 0;
  return rank_of(c);  // the group's member with coordinate 0 names it
}

}  // namespace mt
