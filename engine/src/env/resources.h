// Process resources: thread count policy and peak memory.
#pragma once

#include <cstdint>

namespace mt {

// OMP_NUM_THREADS when set, else max(1, hardware threads / ranks on this node), the node's rank
// count coming from OMPI_COMM_WORLD_LOCAL_SIZE.
int default_threads();

// Peak resident set size of this process (VmHWM, else getrusage), bytes.
int64_t peak_rss_bytes();

}  // namespace mt
