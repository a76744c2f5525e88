#include "core/comm/backends.h"

#include <stdexcept>

#include "core/comm/mpi/mpi_communicator.h"

namespace mt {

#if MT_WITH_NCCL
std::unique_ptr<Communicator> make_nccl_communicator(ControlChannel& control, double timeout_s);
std::string nccl_devices_problem(ControlChannel& control);
#endif

namespace {

std::unique_ptr<Communicator> make_mpi(ControlChannel&, double timeout_s) {
  return std::make_unique<MpiCommunicator>(timeout_s);
}

}  // namespace

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table = {
    {"mpi", true, &make_mpi, nullptr},
#if MT_WITH_NCCL
    {"nccl", true, &make_nccl_communicator, &nccl_devices_problem},
#else
    {"nccl", false, nullptr, nullptr},
#endif
  };
  return table;
}

std::string available_backends() {
  std::string out;
  for (const auto& entry : backend_table()) {
    if (!entry.available) continue;
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

std::optional<std::string> backend_problem_here(const std::string& name, ControlChannel& control) {
  for (const auto& entry : backend_table()) {
    if (name != entry.name || !entry.available || !entry.problem_here) continue;
    if (std::string problem = entry.problem_here(control); !problem.empty()) return problem;
  }
  return std::nullopt;
}

std::unique_ptr<Communicator> make_communicator(const std::string& name, ControlChannel& control, double timeout_s) {
  for (const auto& entry : backend_table()) {
    if (name != entry.name) continue;
    if (!entry.available)
      throw std::invalid_argument("--backend " + name +
                                  " is not supported in this build (supported: " + available_backends() + ")");
    return entry.make(control, timeout_s);
  }
  throw std::invalid_argument("unknown backend '" + name + "'");
}

}  // namespace mt
