#pragma once
// Finding the database and the campaign a command is about, with messages a user can act on.
#include <filesystem>
#include <optional>
#include <string>

#include "store.h"

namespace mt {

// Throws RunnerError (usage) when there is no database file at `db`.
void require_database(const std::filesystem::path& db);

// The campaign with this id (or unique prefix), or the most recently run one when `id` is empty.
// Throws RunnerError (usage) when there is none.
Campaign select_campaign(Store& store, const std::optional<std::string>& id, const std::filesystem::path& db);

}  // namespace mt
