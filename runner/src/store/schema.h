#pragma once
// The store's schema (schemas/store.sql, compiled in) and how a database file is checked and
// brought to it. Every check reads before anything is written, so a file that is refused is left
// exactly as it was.
#include <filesystem>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

// The schema in sections: [0] creates version 1, [k] takes version k to k + 1.
std::vector<std::string> schema_sections();
int latest_schema_version();

// " (if FILE-wal is not this database's own log, … move it aside …)" where a non-empty -wal lies
// beside `file`, else "": a log copied in with another database reads as valid to SQLite, which
// replays it onto this one, and the file then looks damaged or foreign through no fault of its own.
std::string foreign_wal_hint(const std::filesystem::path& file);

// Throws RunnerError (usage) where `file` is a directory, a device, a FIFO or a socket: SQLite would
// say only that it cannot open it, or fail on its I/O.
void refuse_unless_file(const std::filesystem::path& file);

// The schema version of an mtrun database, read without writing. Throws RunnerError (usage) for a
// file that is not an SQLite database, an SQLite database that is not mtrun's, one written by a
// newer mtrun, a negative version, and a damaged one (schema_objects.h). An empty database is
// version 0 when `empty_ok`, else refused as not mtrun's.
int checked_schema_version(Database& db, const std::filesystem::path& file, bool empty_ok);

// Creates or migrates `db` to the latest version in one immediate transaction, so two runners
// starting on a new file never both create the tables. Returns the version found.
int migrate_to_latest(Database& db, const std::filesystem::path& file);

}  // namespace mt
