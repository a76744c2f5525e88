#include "core_use.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "checked_int.h"
#include "json_fields.h"

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

std::optional<int> stated_count(const nlohmann::json& object, const char* key) {
  std::optional<int> whole;
  if (const std::optional<double> number = number_field(object, key); number && *number == std::floor(*number)) {
    whole = checked_int(*number);
  } else if (const std::string text = text_field(object, key); !text.empty()) {
    try {
      std::size_t used = 0;
      const int n = std::stoi(text, &used);
      if (used == text.size()) whole = n;
    } catch (const std::exception&) {  // not a number, or beyond an int
    }
  }
  return whole && *whole >= 1 ? whole : std::nullopt;
}

CoreUse stated_core_use(const nlohmann::json& result, const nlohmann::json& environment, int ranks) {
  CoreUse use;
  use.cores = stated_count(environment, "cpu_cores");
  use.ranks = ranks;
  use.ranks_per_node = most_ranks_on_one_host(result).value_or(ranks);
  use.threads_per_rank = stated_count(result, "threads_per_rank");
  if (!use.threads_per_rank) use.threads_per_rank = stated_count(environment, "threads_per_rank");
  if (!use.threads_per_rank)
    use.threads_per_rank = stated_count(object_field(environment, "env_vars"), "OMP_NUM_THREADS");
  return use;
}

}  // namespace mt
