#include "core_use.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "checked_int.h"

namespace mt {

// In 64 bits: a result's own thread count may be anything an int holds.
std::optional<int> CoreUse::total_threads() const {
  if (!threads_per_rank) return std::nullopt;
  return checked_int(double(std::int64_t(ranks) * *threads_per_rank));
}

bool CoreUse::oversubscribed() const {
  if (cores) return std::int64_t(ranks_per_node) * threads_per_rank.value_or(1) > *cores || launcher_oversubscribed;
  return launcher_oversubscribed;
}

std::optional<int> most_ranks_on_one_host(const nlohmann::json& result) {
  if (!result.is_object() || !result.contains("hosts") || !result["hosts"].is_array() || result["hosts"].empty())
    return std::nullopt;
  std::map<std::string, int> per_host;
  for (const auto& h : result["hosts"]) per_host[h.is_string() ? h.get<std::string>() : h.dump()]++;
  int most = 0;
  for (const auto& [host, n] : per_host) most = std::max(most, n);
  return most;
}

}  // namespace mt
