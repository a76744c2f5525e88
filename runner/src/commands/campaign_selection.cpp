#include "commands/campaign_selection.h"

#include <fmt/format.h>

#include "runner_error.h"

namespace mt {

void require_database(const std::filesystem::path& db) {
  if (!std::filesystem::exists(db)) {
    throw RunnerError(kExitUsage,
                      fmt::format("no database at {} (run an experiment first, or pass --db)", db.string()));
  }
}

Campaign select_campaign(Store& store, const std::optional<std::string>& id, const std::filesystem::path& db) {
  std::optional<Campaign> campaign = id ? store.find_campaign(*id) : store.latest_campaign();
  if (campaign) return *campaign;
  if (id) throw RunnerError(kExitUsage, fmt::format("no campaign '{}' in {}", *id, db.string()));
  throw RunnerError(kExitUsage, fmt::format("{} holds no campaign yet", db.string()));
}

}  // namespace mt
