#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements, and errors as
// exceptions that carry SQLite's own message.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace mt {

class SqliteError : public std::runtime_error {
 public:
  explicit SqliteError(const std::string& message, int code = 1) : std::runtime_error(message), code_(code) {}
  int code() const { return code_ & 0xff; }  // SQLite's primary result code (SQLITE_BUSY, SQLITE_NOTADB, …)

 private:
  int code_;
};

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  explicit Statement(sqlite3_stmt* prepared);  // takes ownership
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;

  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value);
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, std::int64_t(value)); }
  Statement& bind(int index, double value);
  Statement& bind_null(int index);
  Statement& bind_blob(int index, const std::string& bytes);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  bool step();  // true while a row is available
  void run();   // step to completion, for statements without results
  void reset();

  int column_count() const;
  std::string column_name(int i) const;
  bool is_null(int i) const;
  bool is_number(int i) const;   // INTEGER or REAL
  bool is_integer(int i) const;  // INTEGER: the value's own type, not the column's
  bool is_blob(int i) const;     // BLOB: the value's own type
  std::string text(int i) const;
  std::string blob(int i) const;  // every byte, NULs included
  std::int64_t integer(int i) const;
  double real(int i) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // ReadWrite creates the file if needed. ReadOnly never writes. Immutable reads without locking
  // or shared memory, for a database in a directory this process cannot write (where SQLite could
  // not create the WAL index a read needs); only safe when nothing writes the database meanwhile.
  enum class Mode { ReadWrite, ReadOnly, Immutable };
  Database(const std::filesystem::path& file, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql) { return Statement(db_, sql); }
  std::int64_t last_insert_id() const;
  int changes() const;  // rows changed by the last INSERT, UPDATE or DELETE
  bool has_table(const std::string& name);
  int user_version();
  bool read_only();  // opened read-only, or the file is not writable
  sqlite3* handle() { return db_; }
  // A private directory (a copy of the file) removed, with everything in it, once this closes.
  void remove_on_close(const std::filesystem::path& directory) { private_dir_ = directory; }
  // Waits up to `limit` for another connection's lock, where the default gives up after 10 s: a
  // writer that records a finished measurement must not lose it to a long transaction elsewhere (a
  // VACUUM, a shell's open transaction). Once a wait passes 10 s it says on stderr what it waits
  // for. Once `stop` turns true (Ctrl-C) it waits no longer than SQLite's usual 10 s: the writes
  // that record the stop still wait for a lock held a moment.
  void wait_for_locks(std::chrono::seconds limit, const std::atomic<bool>* stop = nullptr);

 private:
  static int on_busy(void* self, int tries);
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
  std::filesystem::path private_dir_;
  std::chrono::seconds patience_{0};
  const std::atomic<bool>* stop_ = nullptr;
  std::chrono::steady_clock::time_point busy_since_;
  bool said_waiting_ = false;
};

// Commits on commit(), rolls back if destroyed before — so an exception never leaves half a write.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace mt
