#pragma once
// Finding the database a command is about, with a message a user can act on.
#include <filesystem>

namespace mt {

// Throws RunnerError (usage) when there is no database file at `db`.
void require_database(const std::filesystem::path& db);

}  // namespace mt
