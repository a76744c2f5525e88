// The one table of communication backends: name -> factory. Adding one is a file and a line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/control_channel.h"

namespace mt {

struct BackendEntry {
  const char* name;
  bool available;  // compiled into this build
  std::unique_ptr<Communicator> (*make)(ControlChannel& control, double timeout_s);
};

const std::vector<BackendEntry>& backend_table();
// Names of the backends this build can run, for messages: "mpi".
std::string available_backends();

// The communicator for `name`; throws std::invalid_argument when it is unknown or not built.
std::unique_ptr<Communicator> make_communicator(const std::string& name, ControlChannel& control, double timeout_s);

}  // namespace mt
