#pragma once
// A problem some ranks find alone (their own file, their own host) that every rank must stop for:
// decided by all ranks together, so that none is left waiting in a collective for one that stopped,
// and said by rank 0 (mpirun may stop the others before they print) in the failing rank's own words.
#include <optional>
#include <string>

#include "core/comm/control_channel.h"

namespace mt {

struct RankProblem {
  int rank = 0;       // the lowest rank that found one
  std::string words;  // that rank's words, on rank 0 and on that rank; "" on the others
};

// A collective: every rank passes its own problem, "" for none. nullopt when no rank has one.
std::optional<RankProblem> first_rank_problem(ControlChannel& control, const std::string& mine);

}  // namespace mt
