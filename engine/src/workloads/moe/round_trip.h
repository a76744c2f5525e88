// The MoE oracle's bookkeeping, torch-free so that it can be tested against broken exchanges.
// Every assignment leaves its rank with an id (origin rank · tokens + position); the expert that
// computes it sends back a stamp naming both the id and itself. A round trip is right when each
// slot's stamp carries the id that left from that slot and the expert its assignment chose: a
// split table that disagrees with the assignments sends tokens to the wrong expert (misrouted),
// a receive side that mixes up its segments returns them to the wrong slot (astray).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/moe/routing.h"

namespace mt {

// The id a token at `position` of `rank`'s batch travels with.
int32_t token_id(int rank, int64_t tokens, int64_t position);

// What expert `expert` sends back for the token `id`: the id and the expert in one number.
int32_t stamp(int32_t id, int expert, int world);

// The most tokens per rank whose stamps fit in 32 bits on `world` ranks.
int64_t max_tokens_per_rank(int world);

struct RoundTripErrors {
  int64_t astray = 0;     // slots whose stamp carries another token's id
  int64_t misrouted = 0;  // slots computed by an expert other than the one their assignment chose
  bool ok() const { return astray == 0 && misrouted == 0; }
};

// `stamps[i]` is what came back for routing.assignments[i].
RoundTripErrors check_round_trip(const Routing& routing, int rank, int64_t tokens, int world,
                                 const std::vector<int32_t>& stamps);

}  // namespace mt
