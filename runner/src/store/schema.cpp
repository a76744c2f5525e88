#include "store/schema.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "runner_error.h"
#include "store/schema_objects.h"

namespace mt {

const char* store_schema_sql();  // generated from schemas/store.sql

namespace {

constexpr const char* kVersionMarker = "\n-- @version ";

// What the checks read, in one statement so that it is one consistent read: a runner creating the
// schema at this moment is seen either before or after, never half-way.
struct FileState {
  int version = 0;
  int objects = 0;       // anything in the schema
  int mtrun_tables = 0;  // of the tables every mtrun database has had since version 1
};

FileState read_state(Database& db) {
  auto s = db.prepare(
      "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master), "
      "(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('campaigns', 'trials', "
      "'attempts'))");
  s.step();
  return {int(s.integer(0)), int(s.integer(1)), int(s.integer(2))};
}

RunnerError unusable(const std::filesystem::path& file, const std::string& why) {
  return RunnerError(kExitUsage, fmt::format("{} {}", file.string(), why));
}

}  // namespace

std::string foreign_wal_hint(const std::filesystem::path& file) {
  std::error_code error;
  const std::filesystem::path wal = file.string() + "-wal";
  if (!std::filesystem::is_regular_file(wal, error) || std::filesystem::file_size(wal, error) == 0 || error) return "";
  return fmt::format(
      " (if {} is not this database's own log, as one copied in with another database, move it "
      "aside and try again)",
      wal.string());
}

void refuse_unless_file(const std::filesystem::path& file) {
  std::error_code error;
  const auto type = std::filesystem::status(file, error).type();
  if (type == std::filesystem::file_type::directory) {
    throw unusable(file, "is a directory; --db names the database file (e.g. results/mtrun.sqlite)");
  }
  // SQLite would fail on a device or a FIFO with "disk I/O error", after creating its journal
  // beside it (/dev/null-journal).
  const char* what = type == std::filesystem::file_type::character ? "a character device"
                     : type == std::filesystem::file_type::block   ? "a block device"
                     : type == std::filesystem::file_type::fifo    ? "a FIFO"
                     : type == std::filesystem::file_type::socket  ? "a socket"
                                                                   : nullptr;
  if (what) throw unusable(file, fmt::format("is {}, not a file; --db names the database file", what));
}

std::vector<std::string> schema_sections() {
  const std::string sql = store_schema_sql();
  std::vector<std::string> sections;
  size_t start = 0;
  for (size_t at = sql.find(kVersionMarker); at != std::string::npos; at = sql.find(kVersionMarker, at + 1)) {
    sections.push_back(sql.substr(start, at - start));
    start = at + 1;
  }
  sections.push_back(sql.substr(start));
  return sections;
}

int latest_schema_version() { return int(schema_sections().size()); }

int checked_schema_version(Database& db, const std::filesystem::path& file, bool empty_ok) {
  FileState state;
  try {
    state = read_state(db);
  } catch (const SqliteError& e) {
    if (e.code() == SQLITE_NOTADB) throw unusable(file, "is not an SQLite database");
    throw;
  }
  if (state.version == 0 && state.objects == 0 && empty_ok) return 0;
  if (state.version > latest_schema_version()) {
    throw unusable(file, fmt::format("has schema version {}, newer than this mtrun understands ({}); use a newer "
                                     "mtrun or another --db",
                                     state.version, latest_schema_version()));
  }
  if (state.version < 0) {
    throw unusable(file, fmt::format("has schema version {}, which no mtrun writes; it is not a usable mtrun results "
                                     "database",
                                     state.version));
  }
  if (state.version == 0 || state.mtrun_tables != 3)
    throw unusable(file, "is not an mtrun results database" + foreign_wal_hint(file));
  check_schema_objects(db, file, state.version);
  return state.version;
}

int migrate_to_latest(Database& db, const std::filesystem::path& file) {
  Transaction tx(db);
  const int found = checked_schema_version(db, file, /*empty_ok=*/true);  // again: another runner may have won
  const auto sections = schema_sections();
  for (int version = found; version < int(sections.size()); ++version) db.exec(sections[size_t(version)]);
  if (found < int(sections.size())) db.exec(fmt::format("PRAGMA user_version = {}", sections.size()));
  tx.commit();
  return found;
}

}  // namespace mt
