#include "core/job/memory_check.h"

#include <optional>

#include "core/env/resources.h"
#include "core/job/input_error.h"

namespace mt {

void require_host_memory(ControlChannel& control, bool device_memory, double per_rank_bytes, const std::string& what,
                         const std::string& remedy) {
  const auto problem = device_memory
                           ? std::nullopt
                           : host_memory_problem(static_cast<int64_t>(per_rank_bytes), control.local_size(), what);
  if (control.max(problem ? 1.0 : 0.0) > 0)
    throw InputError((problem ? *problem : "another host cannot hold " + what) + ": " + remedy);
}

}  // namespace mt
