#include "store/store_reader.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "runner_error.h"
#include "store/schema.h"
#include "store/wal_copy.h"

namespace mt {

std::unique_ptr<Database> open_store_read_only(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw RunnerError(kExitUsage,
                      fmt::format("no database at {} (run an experiment first, or pass --db)", file.string()));
  }
  refuse_unless_file(file);
  auto db = std::make_unique<Database>(file, Database::Mode::ReadOnly);
  try {
    checked_schema_version(*db, file, /*empty_ok=*/false);
  } catch (const SqliteError& e) {
    // A WAL database whose index (-shm) cannot be created here: SQLite says it cannot open the
    // file, or that reading it would write.
    if (e.code() != SQLITE_CANTOPEN && e.code() != SQLITE_READONLY) throw;
    // immutable=1 reads the main file alone: right only when the -wal is absent or empty.
    db.reset();
    if (inspect_wal(file) == WalFile::Frames) {
      db = open_private_copy(file);
    } else {
      db = std::make_unique<Database>(file, Database::Mode::Immutable);
    }
    checked_schema_version(*db, file, /*empty_ok=*/false);
  }
  return db;
}

}  // namespace mt
