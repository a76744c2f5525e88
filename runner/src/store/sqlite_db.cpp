#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "table_cell.h"

namespace mt {
namespace {

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
    throw SqliteError(fmt::format("{}: {}", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)), rc);
  }
}

// file: URI of a path, for opening with URI parameters: '%', '?' and '#' are escaped.
std::string file_uri(const std::filesystem::path& file) {
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(file).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri;
}

}  // namespace

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
  check(db_, sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &stmt_, nullptr), "SQL error");
}

Statement::Statement(sqlite3_stmt* prepared) : db_(sqlite3_db_handle(prepared)), stmt_(prepared) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

Statement& Statement::bind(int index, const std::string& value) {
  check(db_, sqlite3_bind_text(stmt_, index, value.c_str(), int(value.size()), SQLITE_TRANSIENT), "bind");
  return *this;
}
Statement& Statement::bind(int index, const char* value) { return bind(index, std::string(value)); }
Statement& Statement::bind(int index, std::int64_t value) {
  check(db_, sqlite3_bind_int64(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  check(db_, sqlite3_bind_double(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  check(db_, sqlite3_bind_null(stmt_, index), "bind");
  return *this;
}
Statement& Statement::bind_blob(int index, const std::string& bytes) {
  check(db_, sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT), "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  check(db_, rc, "SQL error");
  return rc == SQLITE_ROW;
}

void Statement::run() {
  while (step()) {}
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::column_count() const { return sqlite3_column_count(stmt_); }
std::string Statement::column_name(int i) const { return sqlite3_column_name(stmt_, i); }
bool Statement::is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
bool Statement::is_number(int i) const {
  int type = sqlite3_column_type(stmt_, i);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}
bool Statement::is_integer(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_INTEGER; }
bool Statement::is_blob(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_BLOB; }
std::string Statement::text(int i) const {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}
std::string Statement::blob(int i) const {
  const void* data = sqlite3_column_blob(stmt_, i);
  const int size = sqlite3_column_bytes(stmt_, i);
  return data ? std::string(static_cast<const char*>(data), std::size_t(size)) : std::string();
}
std::int64_t Statement::integer(int i) const { return sqlite3_column_int64(stmt_, i); }
double Statement::real(int i) const { return sqlite3_column_double(stmt_, i); }

Database::Database(const std::filesystem::path& file, Mode mode) : file_(file) {
  int flags = mode == Mode::ReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  std::string name = file.string();
  if (mode == Mode::Immutable) {
    name = file_uri(file) + "?immutable=1";
    flags |= SQLITE_OPEN_URI;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(fmt::format("cannot open database {}: {}", file.string(), message), rc);
  }
  // A campaign writer and a reader (status, query) may overlap; wait for each other briefly.
  sqlite3_busy_timeout(db_, 10000);
}

void Database::wait_for_locks(std::chrono::seconds limit, const std::atomic<bool>* stop) {
  patience_ = limit;
  stop_ = stop;
  sqlite3_busy_handler(db_, &Database::on_busy, this);
}

// SQLite's busy handler: nonzero to try again. `tries` is 0 at the start of each wait.
int Database::on_busy(void* self, int tries) {
  // SQLite's usual wait, which the writes after a stop (recording it) still get.
  constexpr auto kUsualWait = std::chrono::seconds(10);
  auto& db = *static_cast<Database*>(self);
  const auto now = std::chrono::steady_clock::now();
  if (tries == 0) {
    db.busy_since_ = now;
    db.said_waiting_ = false;
  }
  const bool stopping = db.stop_ && db.stop_->load();
  const auto waited = now - db.busy_since_;
  if (waited >= (stopping ? std::min<std::chrono::steady_clock::duration>(db.patience_, kUsualWait) : db.patience_))
    return 0;
  if (!stopping && waited >= kUsualWait && !db.said_waiting_) {
    db.said_waiting_ = true;
    std::fprintf(
        stderr, "mtrun: waiting for %s: another connection holds its lock (waiting up to %lld s more; Ctrl-C stops)\n",
        escape_control_characters(db.file_.string()).c_str(),
        static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(db.patience_ - waited).count()));
  }
  // Short sleeps first, as SQLite's own handler: most waits are for a commit a moment away.
  std::this_thread::sleep_for(std::chrono::milliseconds(tries < 10 ? 5 : 100));
  return 1;
}

Database::~Database() {
  sqlite3_close(db_);
  std::error_code ec;
  if (!private_dir_.empty()) std::filesystem::remove_all(private_dir_, ec);
}

void Database::exec(const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw SqliteError(message, rc);
  }
}

std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

bool Database::has_table(const std::string& name) {
  Statement s(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind(1, name);
  return s.step();
}

bool Database::read_only() { return sqlite3_db_readonly(db_, "main") == 1; }

int Database::user_version() {
  Statement s(db_, "PRAGMA user_version");
  s.step();
  return int(s.integer(0));
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {}
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace mt
