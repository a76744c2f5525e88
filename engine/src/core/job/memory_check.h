// A job that would not fit in its hosts' memory is bad input, refused before the first buffer
// exists: started anyway, it would let the machine's OOM killer choose a victim.
#pragma once

#include <string>

#include "core/comm/control_channel.h"

namespace mt {

// Collective. Each rank checks its host for `per_rank_bytes` times the ranks it holds (see
// host_memory_problem); when any host falls short, every rank throws InputError (exit 2): the
// ranks that found it with the need, what is available and `remedy`, the others naming another
// host. Runs whose buffers live in device memory (`device_memory`) are not checked here.
void require_host_memory(ControlChannel& control, bool device_memory, double per_rank_bytes, const std::string& what,
                         const std::string& remedy);

}  // namespace mt
