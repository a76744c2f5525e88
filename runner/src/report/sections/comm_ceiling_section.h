#pragma once
// Whether a collective's bandwidth is good for this machine: each curve's busbw at its largest
// size as a share of the memory-copy ceiling the engine measured beside it (comm_rows.h).
#include <string>

#include "report/model/comm_rows.h"

namespace mt {

// The ceiling of one rank's busbw on one node: half the copy rate of one thread, since the probe
// counts bytes read plus bytes written and a shared-memory transport copies every byte of bus
// traffic at least once.
double busbw_ceiling_gbps(double copy_gbps_per_thread);

// "### Against the memory-copy ceiling" with its table; empty when no engine job probed memory or
// every rank count that did oversubscribed the cores.
std::string render_memory_ceiling(const CommData& data);

}  // namespace mt
