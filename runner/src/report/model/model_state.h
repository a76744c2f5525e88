#pragma once
// Model state one rank holds, from the engine's exact `memory.*` accounting: what sharding
// saves, without LibTorch's own few hundred MiB that dominate peak RSS. FSDP's gathered
// parameters count too: a rank holds its shard and, at the peak, a gathered unit beside it.
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

struct ModelState {
  double parameters = 0;  // MiB, persistent (full or this rank's shard)
  double gradients = 0;   // MiB at their peak, transient buffers included
  double optimizer = 0;   // MiB of optimizer state
  double gathered = 0;    // MiB of full parameters gathered beside the shard (FSDP)
  double total() const { return parameters + gradients + optimizer + gathered; }
};

// A trial's model state, the largest over ranks; nullopt unless the result reports parameters,
// gradients and optimizer state.
std::optional<ModelState> model_state(const ReportTrial& trial);

// Totals (state MiB) of the group's trials that report them.
std::vector<double> model_state_mib(const Group& group);

// Component means over the group's trials that report them; nullopt when none does.
std::optional<ModelState> mean_model_state(const Group& group);

}  // namespace mt
