#pragma once
// Writes a restarted job's launches (AttemptOutcome::launches) as rows of table launches, inside
// the caller's transaction, so an attempt or stage is finished together with its launches.
#include <cstdint>
#include <optional>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace mt {

void insert_launches(Database& db, std::int64_t attempt_id, std::optional<std::int64_t> stage_id,
                     const std::vector<LaunchRecord>& launches);

}  // namespace mt
