#pragma once
// The order a campaign's trials run in within a round: `interleaved` (every configuration once per
// round, in matrix order) or `shuffled` (each round permuted from the experiment's seed). The
// permutation is ours, not std::shuffle's, whose algorithm the standard leaves to each library:
// the same seed gives the same order with any compiler.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mt {

inline constexpr const char* kOrderInterleaved = "interleaved";
inline constexpr const char* kOrderShuffled = "shuffled";

// A uniform integer in [0, n) from `rng` by rejection (no modulo bias); n > 0.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);

// Fisher–Yates permutation of 0..n-1 for round `round` of a campaign seeded with `seed`. Each round
// has its own generator, so a round added later (adaptive repeats) does not change earlier ones.
std::vector<std::uint64_t> shuffled_round(std::uint64_t n, std::uint64_t seed, int round);

// "interleaved" or "shuffled (seed 42)": what plan, run and reports say.
std::string order_text(const std::string& order, std::uint64_t seed);

}  // namespace mt
