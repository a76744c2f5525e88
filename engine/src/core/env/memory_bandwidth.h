// How fast one thread of this machine copies memory that does not fit in cache: the ceiling for
// anything a rank streams through memory (a shared-memory collective's bus bandwidth, an
// optimizer step), measured with every launch beside the SGEMM probe so that a result says what
// the machine could do while it ran. Torch-free.
#pragma once

namespace mt {

// GB/s of one thread copying a buffer into another, both out of every cache (bytes read plus bytes
// written, best of three copies; about 12 ms). 0 when the buffers cannot be allocated.
double probe_copy_gbps_per_thread();

}  // namespace mt
