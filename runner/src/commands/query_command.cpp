// mtrun query SQL: answers questions from the database on a read-only connection. One statement,
// reads only (an authorizer refuses everything else before it runs), with an optional time limit;
// the first Ctrl-C stops it.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "commands/number_options.h"
#include "commands/query_output.h"
#include "runner_error.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_reader.h"

namespace mt {
namespace {

// The longest --timeout: a week (0, the default, is no limit).
constexpr double kLongestQuerySeconds = 7 * 24 * 3600;

struct QueryOptions {
  std::filesystem::path db;
  std::string sql;
  QueryFormat format = QueryFormat::Table;
  double timeout_s = 0;  // 0: no limit
};

using Clock = std::chrono::steady_clock;

// Pragmas that describe the schema (their argument names a table or index) and pragmas read
// without a value; any other pragma, or one of the latter given a value, is refused.
// The checks read only, whatever their argument (a table, or how many errors to list).
const std::set<std::string> kSchemaPragmas = {"table_info",       "table_xinfo",     "table_list",
                                              "index_list",       "index_info",      "index_xinfo",
                                              "foreign_key_list", "integrity_check", "quick_check"};
const std::set<std::string> kValuePragmas = {"user_version", "schema_version", "page_size",
                                             "page_count",   "freelist_count", "application_id"};

// Reads only: every action SQLite asks about is refused unless it reads.
int authorize(void*, int action, const char* first, const char* second, const char*, const char*) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE: return SQLITE_OK;
    case SQLITE_PRAGMA:
      if (first && kSchemaPragmas.count(first)) return SQLITE_OK;
      return first && kValuePragmas.count(first) && !second ? SQLITE_OK : SQLITE_DENY;
    default: return SQLITE_DENY;
  }
}

// Stops a running statement when Ctrl-C was pressed or the time limit passed.
struct Watch {
  std::optional<Clock::time_point> deadline;
  bool timed_out = false;

  static int check(void* self) {
    auto& watch = *static_cast<Watch*>(self);
    if (g_stop_requested.load()) return 1;
    if (watch.deadline && Clock::now() > *watch.deadline) watch.timed_out = true;
    return watch.timed_out ? 1 : 0;
  }
};

RunnerError refused(const std::string& why) {
  return RunnerError(kExitUsage,
                     "mtrun query is read-only; statements that change the database are refused (" + why + ")");
}

// The one statement of `sql`; refuses a second one and anything that is not a read.
Statement prepare_one_read(Database& db, const std::string& sql) {
  sqlite3_set_authorizer(db.handle(), authorize, nullptr);
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), int(sql.size()), &stmt, &tail);
  if (rc == SQLITE_AUTH) throw refused(sqlite3_errmsg(db.handle()));
  if (rc != SQLITE_OK) throw RunnerError(kExitUsage, std::string("query failed: ") + sqlite3_errmsg(db.handle()));
  if (!stmt) throw RunnerError(kExitUsage, "query failed: no SQL statement given");
  Statement statement(stmt);
  if (!sqlite3_stmt_readonly(stmt)) throw refused(std::string("not a read: ") + sqlite3_sql(stmt));
  // Anything but blanks and comments after the first statement is a second statement.
  sqlite3_set_authorizer(db.handle(), nullptr, nullptr);  // only parsed here, never run
  sqlite3_stmt* next = nullptr;
  rc = sqlite3_prepare_v2(db.handle(), tail, -1, &next, nullptr);
  sqlite3_finalize(next);
  sqlite3_set_authorizer(db.handle(), authorize, nullptr);
  if (rc != SQLITE_OK || next) {
    std::string rest = tail;
    rest.erase(0, std::min(rest.size(), rest.find_first_not_of(" \t\r\n;")));
    if (rest.size() > 60) rest = rest.substr(0, 57) + "...";
    throw RunnerError(kExitUsage, fmt::format("mtrun query takes exactly one SQL statement; remove what follows "
                                              "the first: '{}'",
                                              rest));
  }
  return statement;
}

// After a statement that names a table or column the database lacks: views and columns newer than
// the file's schema are not in it yet. Other errors (syntax, a function's) have nothing to do with it.
std::string older_schema_note(Database& db, const std::string& error) {
  const int version = db.user_version();
  const bool missing =
      error.find("no such table") != std::string::npos || error.find("no such column") != std::string::npos;
  if (!missing || version >= Store::kSchemaVersion) return "";
  return fmt::format(
      " (this database has schema version {}, this mtrun's is {}: views and columns added since are missing "
      "until a command that writes, such as run or rerun, migrates it; schemas/store.sql says what each version added)",
      version, Store::kSchemaVersion);
}

int run_query(const QueryOptions& options, std::ostream& out) {
  auto db = open_store_read_only(options.db);
  Watch watch;
  if (options.timeout_s > 0) {
    watch.deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  }
  sqlite3_progress_handler(db->handle(), 1000, Watch::check, &watch);
  try {
    Statement s = prepare_one_read(*db, options.sql);
    write_query_rows(s, options.format, out);
  } catch (const RunnerError& e) {
    if (e.exit_code() != kExitUsage || std::string(e.what()).rfind("query failed: ", 0) != 0) throw;
    throw RunnerError(kExitUsage, std::string(e.what()) + older_schema_note(*db, e.what()));
  } catch (const SqliteError& e) {
    if (e.code() == SQLITE_INTERRUPT && watch.timed_out) {
      throw RunnerError(kExitTimeout,
                        fmt::format("query stopped at its time limit of {} s (--timeout)", options.timeout_s));
    }
    if (e.code() == SQLITE_INTERRUPT) throw RunnerError(kExitInterrupted, "query interrupted");
    if (e.code() == SQLITE_CORRUPT || e.code() == SQLITE_NOTADB) throw;  // a damaged file: bad input, named
    // SQL that prepared but failed as it ran (an overflow, malformed JSON): the query failed.
    throw RunnerError(kExitFailure, std::string("query failed: ") + e.what() + older_schema_note(*db, e.what()));
  }
  return 0;
}

}  // namespace

CommandRunner register_query_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<QueryOptions>();
  auto* cmd = app.add_subcommand("query", "run a read-only SQL query against the database");
  cmd->add_option("SQL", options->sql, "SQL; views: training, latest_attempts (see README)")->required();
  auto* csv = cmd->add_flag("--csv", "comma-separated output");
  auto* json = cmd->add_flag("--json", "JSON array of row objects");
  csv->excludes(json);
  cmd->add_option("--timeout", options->timeout_s, "stop the query after this many seconds (default: no limit)")
      ->check(number_from_to(0, kLongestQuerySeconds));
  return [options, csv, json, &global](std::ostream& out) {
    options->db = global.db;
    g_stop_notice = "";  // the first Ctrl-C stops the query
    options->format = *csv ? QueryFormat::Csv : *json ? QueryFormat::Json : QueryFormat::Table;
    return run_query(*options, out);
  };
}

}  // namespace mt
