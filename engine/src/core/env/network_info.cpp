#include "core/env/network_info.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>

extern char** environ;

namespace mt {

std::vector<NetworkInterface> network_interfaces() {
  std::vector<NetworkInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr) continue;
    const int family = it->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* address = family == AF_INET
                              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr)
                              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(it->ifa_addr)->sin6_addr);
    inet_ntop(family, address, text, sizeof(text));
    out.push_back({it->ifa_name, text, (it->ifa_flags & IFF_UP) != 0, (it->ifa_flags & IFF_LOOPBACK) != 0});
  }
  freeifaddrs(list);
  return out;
}

std::vector<std::pair<std::string, std::string>> transport_variables() {
  static const char* const prefixes[] = {"NCCL_", "OMPI_MCA_", "UCX_", "PMIX_MCA_"};
  std::vector<std::pair<std::string, std::string>> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = text.substr(0, equals);
    const bool steering =
        std::any_of(std::begin(prefixes), std::end(prefixes), [&](const char* p) { return name.rfind(p, 0) == 0; });
    // Open MPI's launcher sets these for every process: bookkeeping, not a user's choice.
    const bool bookkeeping = name.rfind("OMPI_MCA_orte_", 0) == 0 || name.rfind("OMPI_MCA_ess", 0) == 0 ||
                             name.rfind("OMPI_MCA_pmix", 0) == 0 || name == "OMPI_MCA_mpi_oversubscribe" ||
                             name.rfind("OMPI_MCA_initial_wdir", 0) == 0;
    if (steering && !bookkeeping) out.emplace_back(name, text.substr(equals + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mt
