#include "workloads/moe/round_trip.h"

#include <cstddef>
#include <limits>
#include <stdexcept>

namespace mt {

int32_t token_id(int rank, int64_t tokens, int64_t position) {
  return static_cast<int32_t>(static_cast<int64_t>(rank) * tokens + position);
}

int32_t stamp(int32_t id, int expert, int world) {
  return static_cast<int32_t>(static_cast<int64_t>(id) * world + expert);
}

int64_t max_tokens_per_rank(int world) {
  const int64_t w = world;
  return std::numeric_limits<int32_t>::max() / (w * w);
}

RoundTripErrors check_round_trip(const Routing& routing, int rank, int64_t tokens, int world,
                                 const std::vector<int32_t>& stamps) {
  if (stamps.size() != routing.assignments.size()) {
    throw std::invalid_argument("check_round_trip: one stamp per assignment expected");
  }
  RoundTripErrors errors;
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    const Assignment& a = routing.assignments[i];
    const int32_t s = stamps[i];
    if (s < 0 || s / world != token_id(rank, tokens, a.token)) ++errors.astray;
    if (s < 0 || s % world != a.expert) ++errors.misrouted;
  }
  return errors;
}

}  // namespace mt
