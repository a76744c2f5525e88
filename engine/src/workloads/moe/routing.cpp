#include "workloads/moe/routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace mt {
namespace {

Routing grouped(std::vector<Assignment> assignments, int world, int64_t dropped) {
  std::stable_sort(assignments.begin(), assignments.end(),
                   [](const Assignment& a, const Assignment& b) { return a.expert < b.expert; });
  Routing r;
  r.per_expert.assign(static_cast<std::size_t>(world), 0);
  for (const auto& a : assignments) ++r.per_expert[static_cast<std::size_t>(a.expert)];
  r.assignments = std::move(assignments);
  r.dropped = dropped;
  return r;
}

Routing top_k(const RoutingConfig& c, int rank, int world, int64_t tokens) {
  if (c.top_k < 1 || c.top_k > world) throw std::invalid_argument("--top-k must be between 1 and the number of ranks");
  std::mt19937_64 rng(c.seed + 1000003ULL * static_cast<uint64_t>(rank));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto capacity =
      static_cast<int64_t>(std::ceil(c.capacity_factor * static_cast<double>(tokens) * c.top_k / world));
  std::vector<int64_t> load(static_cast<std::size_t>(world), 0);
  std::vector<Assignment> kept;
  int64_t dropped = 0;
  std::vector<float> score(static_cast<std::size_t>(world));
  std::vector<int> order(static_cast<std::size_t>(world));
  for (int64_t t = 0; t < tokens; ++t) {
    for (auto& s : score) s = normal(rng);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + c.top_k, order.end(),
                      [&](int a, int b) { return score[a] > score[b]; });
    float total = 0;
    for (int i = 0; i < c.top_k; ++i) total += std::exp(score[order[i]] - score[order[0]]);
    for (int i = 0; i < c.top_k; ++i) {
      const int e = order[i];
      if (load[e] >= capacity) {
        ++dropped;
        continue;
      }
      ++load[e];
      kept.push_back({t, e, std::exp(score[e] - score[order[0]]) / total});
    }
  }
  return grouped(std::move(kept), world, dropped);
}

}  // namespace

Routing route_tokens(const RoutingConfig& c, int rank, int world, int64_t tokens) {
  std::vector<Assignment> out;
  if (c.kind == "balanced") {
    for (int64_t t = 0; t < tokens; ++t) out.push_back({t, static_cast<int>((t + rank) % world), 1.0f});
    return grouped(std::move(out), world, 0);
  }
  if (c.kind == "hot") {
    const auto hot = static_cast<int64_t>(std::llround(c.hot_fraction * static_cast<double>(tokens)));
    for (int64_t t = 0; t < tokens; ++t) {
      const int expert = t < hot || world == 1 ? 0 : 1 + static_cast<int>((t - hot + rank) % (world - 1));
      out.push_back({t, expert, 1.0f});
    }
    return grouped(std::move(out), world, 0);
  }
  if (c.kind == "topk") return top_k(c, rank, world, tokens);
  throw std::invalid_argument("unknown routing '" + c.kind + "' (balanced, hot, topk)");
}

}  // namespace mt
