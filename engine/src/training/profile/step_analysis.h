// What one rank's spans say about its steps: the breakdown of each step's time (data,
// forward-backward, optimizer, step) and how much of its communication hid behind computation.
// Computation is the forward-backward and optimizer phases minus the time the rank spent waiting
// for a collective: a wait is exactly where communication was exposed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "training/profile/intervals.h"
#include "training/profile/trace_recorder.h"

namespace mt {

struct StepProfile {
  int64_t step = 0;
  double step_ms = 0, data_ms = 0, compute_ms = 0, optimizer_ms = 0;
  Exposure exposure;  // communication vs forward, backward and optimizer computation
  int collectives = 0;
};

// One entry per step span, for steps >= first_measured (warmup excluded).
std::vector<StepProfile> profile_steps(const std::vector<TraceSpan>& spans, int64_t first_measured);

// mean / std / min / max of each breakdown part and of the exposure figures, as JSON.
nlohmann::json summarize_steps(const std::vector<StepProfile>& steps);

}  // namespace mt
