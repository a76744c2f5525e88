#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements, and errors as
// exceptions that carry SQLite's own message.
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
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
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
  bool is_number(int i) const;  // INTEGER or REAL
  std::string text(int i) const;
  std::int64_t integer(int i) const;
  double real(int i) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  enum class Mode { ReadWrite, ReadOnly };
  Database(const std::filesystem::path& file, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql) { return Statement(db_, sql); }
  std::int64_t last_insert_id() const;
  int user_version();
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
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
