#include "core/job/memory_check.h"

#include <algorithm>
#include <optional>

#include "core/env/resources.h"
#include "core/job/input_error.h"

namespace mt {

void require_host_memory(ControlChannel& control, bool device_memory, double per_rank_bytes, const std::string& what,
                         const std::string& remedy) {
  // Saturated, not converted: a double beyond int64 (or NaN) converts with undefined behaviour, in
  // practice to a negative need that passes the check.
  constexpr double kMost = 9.2e18;
  const int64_t bytes =
      per_rank_bytes < kMost ? static_cast<int64_t>(std::max(0.0, per_rank_bytes)) : static_cast<int64_t>(kMost);
  const auto problem = device_memory ? std::nullopt : host_memory_problem(bytes, control.local_size(), what);
  if (control.max(problem ? 1.0 : 0.0) > 0)
    throw InputError((problem ? *problem : "another host cannot hold " + what) + ": " + remedy);
}

}  // namespace mt
