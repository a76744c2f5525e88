// What a workload communicates through: the tensor collectives of its backend and the host
// control channel beside them.
#pragma once

#include "core/comm/communicator.h"
#include "core/comm/control_channel.h"

namespace mt {

struct ProcessGroup {
  ControlChannel& control;
  Communicator& collectives;

  int rank() const { return control.rank(); }
  int world_size() const { return control.world_size(); }
};

}  // namespace mt
