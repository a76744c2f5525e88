#pragma once
// Reading a WAL database that SQLite cannot read in place: its WAL index (-shm) is gone and cannot
// be created, as in a read-only directory or a backup that dropped it. SQLite's only way in then,
// `immutable=1`, ignores the WAL and answers from stale data, so a database with a non-empty -wal
// is read from a private copy of both files instead; a -wal that is not this database's is refused.
#include <filesystem>
#include <memory>

#include "store/sqlite_db.h"

namespace mt {

enum class WalFile { None, Empty, Frames };

// Whether `file` has a -wal beside it with anything in it. Throws RunnerError (usage) for a -wal
// that is not a regular file, or whose header is not a write-ahead log of a database with
// `file`'s page size.
WalFile inspect_wal(const std::filesystem::path& file);

// `file` and its -wal copied into a new private temporary directory (removed when the database
// closes) and opened read-only there. Throws RunnerError (usage) when the copy cannot be made, and
// when SQLite finds no committed frame of the -wal that belongs to `file`.
std::unique_ptr<Database> open_private_copy(const std::filesystem::path& file);

}  // namespace mt
