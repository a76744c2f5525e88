#pragma once
// Groups that differ only in their study — the same strategy, ranks and other parameters — ran
// one configuration through different implementations or set-ups (the engine and a peer
// framework, say). The report sets each such pair side by side: ratio of means and Welch test.
#include <string>
#include <vector>

#include "report/groups.h"

namespace mt {

// "## Studies compared", or "" when no two studies ran the same configuration.
std::string render_study_comparison(const std::vector<Group>& groups);

}  // namespace mt
