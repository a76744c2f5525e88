#pragma once
// Groups that differ only in their study — the same strategy, ranks and other parameters — ran
// one configuration through different implementations or set-ups (the engine and a peer
// framework, say). The report sets each such pair side by side: ratio of means, Welch test
// corrected over all pairs, and one verdict per measurement.
#include <string>
#include <vector>

#include "report/model/contrast.h"
#include "report/model/groups.h"

namespace mt {

// "engine (LibTorch 2.15.0) ÷ peer (PyTorch 2.15.0), ddp ×2 gradient_sync_mode=every": two studies at one
// configuration (⚠oversubscribed when either ran so); without versions where both sides are one program.
// `config`: how to name the configuration (the axes that tell it from the others'); unset: all its axes.
std::string study_pair_name(const Group& first, const Group& second, bool with_versions = true,
                            const std::string* config = nullptr);

// Rows for every pair of studies at every configuration both ran (first study over second, in the
// experiment's order), verdicts decided together.
std::vector<ContrastRow> study_contrasts(const std::vector<Group>& groups);

// Per training configuration of the experiment's first study: its tokens/s against the fastest other
// study at that configuration, or, for a lower-precision one, at fp32 when that study ran faster there
// (a user of the alternative would pick its fastest set-up). Only where this differs from the pairs
// above: two or more alternatives at the configuration, or the fastest at fp32. Verdicts decided
// together.
std::vector<ContrastRow> best_alternative_contrasts(const std::vector<Group>& groups);

// "## Studies compared", or "" when no two studies ran the same configuration; `best` after the
// pairs, as a table of its own.
std::string render_study_comparison(const std::vector<ContrastRow>& rows, const std::vector<ContrastRow>& best = {});

}  // namespace mt
