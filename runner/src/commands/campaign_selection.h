#pragma once
// Finding the database a command is about, and the experiment it names, with a message a user can
// act on.
#include <filesystem>
#include <string>

#include "store/sqlite_db.h"

namespace mt {

// Throws RunnerError (usage) when there is no database file at `db`.
void require_database(const std::filesystem::path& db);

// The experiment name `named` stands for: itself where the database holds campaigns of that name;
// otherwise, where it is an experiment file, the `name` the file gives (so `mtrun history
// experiments/quickstart.yaml` follows the experiment that file runs); otherwise itself, for the
// lookup to say there is no such experiment. Throws RunnerError (usage) for a file that gives no name.
std::string experiment_named(Database& db, const std::string& named);

}  // namespace mt
