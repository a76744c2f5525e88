// The network interfaces of this host and the environment variables that steer MPI and NCCL
// transports: what `doctor` shows when ranks on several hosts cannot reach each other.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mt {

struct NetworkInterface {
  std::string name;
  std::string address;  // IPv4 or IPv6, numeric
  bool up = false;
  bool loopback = false;
};

std::vector<NetworkInterface> network_interfaces();

// NCCL_*, OMPI_*, UCX_*, PMIX_* variables that are set, sorted by name; Open MPI's per-process
// bookkeeping (OMPI_COMM_WORLD_*, OMPI_MCA_orte_*, ...) is left out.
std::vector<std::pair<std::string, std::string>> transport_variables();

}  // namespace mt
