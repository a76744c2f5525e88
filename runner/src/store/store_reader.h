#pragma once
// Opening a results database for reading only (status, query, report, compare, doctor): nothing is
// created, converted or migrated, and whatever is refused is left exactly as it was.
#include <filesystem>
#include <memory>

#include "store/sqlite_db.h"

namespace mt {

// Throws RunnerError (usage) for a missing file, a file that is not an SQLite database or not an
// mtrun database, and one written by a newer mtrun. A WAL database in a directory this process
// cannot write (where the WAL index cannot be created) is read without locking, or, when its -wal
// holds frames, from a private copy of both files (wal_copy.h); a -wal that is not its own is refused.
std::unique_ptr<Database> open_store_read_only(const std::filesystem::path& file);

}  // namespace mt
