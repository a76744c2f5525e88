// The one table of communication backends: name -> factory. Adding one is a file and a line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/control_channel.h"

namespace mt {

struct BackendEntry {
  const char* name;
  bool available;  // compiled into this build
  std::unique_ptr<Communicator> (*make)(ControlChannel& control, double timeout_s);
  // Collective: why the backend cannot run on these hosts ("" when it can), the same on every
  // rank; nullptr where it runs wherever it is built.
  std::string (*problem_here)(ControlChannel& control) = nullptr;
};

const std::vector<BackendEntry>& backend_table();
// Names of the backends this build can run, for messages: "mpi".
std::string available_backends();

// Collective: why `name` cannot run on these hosts (a GPU backend without a GPU for every rank),
// or nothing. Every rank gets the same answer: a job asked to run it here stops as bad input.
std::optional<std::string> backend_problem_here(const std::string& name, ControlChannel& control);

// The communicator for `name`; throws std::invalid_argument when it is unknown or not built.
std::unique_ptr<Communicator> make_communicator(const std::string& name, ControlChannel& control, double timeout_s);

}  // namespace mt
