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

}  // namespace mt
