// Where each token goes in the MoE benchmark: one expert per rank, and a routing rule.
//   balanced   token t of rank r goes to expert (t + r) mod n: every expert gets the same load
//   hot        a fraction f of every rank's tokens goes to expert 0, the rest spread evenly
//   topk       a fixed random gate (seeded) scores every expert; each token goes to its k best,
//              weighted by the softmax of those scores; an expert takes at most
//              capacity = ceil(capacity_factor · tokens · k / n) tokens from each rank, the rest
//              are dropped and counted
// Torch-free: plain assignments, so the oracle can be checked independently of the exchange.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

struct RoutingConfig {
  std::string kind = "balanced";  // balanced, hot, topk
  double hot_fraction = 0.75;
  int top_k = 1;
  double capacity_factor = 1.25;
  uint64_t seed = 7;
};

struct Assignment {
  int64_t token = 0;  // position in this rank's batch
  int expert = 0;     // = the rank that holds it
  float weight = 1;   // combine weight (topk: softmax of the chosen scores)
};

struct Routing {
  std::vector<Assignment> assignments;  // grouped by expert, in token order within an expert
  std::vector<int64_t> per_expert;      // how many assignments go to each expert
  int64_t dropped = 0;                  // topk: assignments over an expert's capacity
};

Routing route_tokens(const RoutingConfig& config, int rank, int world, int64_t tokens);

}  // namespace mt
