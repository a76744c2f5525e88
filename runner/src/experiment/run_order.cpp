#include "experiment/run_order.h"

#include <fmt/format.h>

namespace mt {

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
  // Values at or above the largest multiple of n are redrawn, so every residue is equally likely.
  const std::uint64_t limit = std::uint64_t(-1) - std::uint64_t(-1) % n;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

std::vector<std::uint64_t> shuffled_round(std::uint64_t n, std::uint64_t seed, int round) {
  // The golden-ratio increment spreads consecutive rounds' seeds over the generator's seed space.
  std::mt19937_64 rng(seed + 0x9E3779B97F4A7C15ULL * std::uint64_t(round + 1));
  std::vector<std::uint64_t> order(n);
  for (std::uint64_t i = 0; i < n; ++i) order[i] = i;
  for (std::uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[uniform_below(rng, i)]);
  return order;
}

std::string order_text(const std::string& order, std::uint64_t seed) {
  return order == kOrderShuffled ? fmt::format("shuffled (seed {})", seed) : order;
}

}  // namespace mt
