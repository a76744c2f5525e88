#pragma once
// How `mtrun query` (and the listing commands that answer like it, such as `campaigns`) write
// rows: an aligned table, CSV or JSON. CSV and JSON stream row by row, so an answer of any length
// needs no more memory than one row; an aligned table must see every row before the first is
// printed, so it holds at most kTableRowLimit of them and then stops, saying how to get the rest.
// Every format stops as soon as the output cannot be written. JSON keeps each value's own type:
// an integer stays an integer (1, not 1.0), a real a real, text a string, NULL null. A blob is
// written as SQL writes one, x'00ff41', in every format: its bytes need be neither text nor
// UTF-8. JSON output is valid whatever the bytes of text: invalid UTF-8 becomes U+FFFD.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

enum class QueryFormat { Table, Csv, Json };

inline constexpr std::size_t kTableRowLimit = 10000;

// One value of a row, typed as SQLite types values.
struct QueryCell {
  enum class Kind { Null, Integer, Real, Text, Blob };
  Kind kind = Kind::Null;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;  // what a table and CSV show: SQLite's own text of the value; "" for NULL

  static QueryCell null() { return {}; }
  static QueryCell of(std::int64_t value) { return {Kind::Integer, value, double(value), std::to_string(value)}; }
  static QueryCell of(std::string value) { return {Kind::Text, 0, 0, std::move(value)}; }
  // x'00ff41' of the bytes 00 ff 41.
  static QueryCell of_blob(const std::string& bytes);
  // `shown` is the text tables and CSV print (a real's digits are the caller's to choose).
  static QueryCell of_real(double value, std::string shown) { return {Kind::Real, 0, value, std::move(shown)}; }
};

// Where the rows come from: a statement as it steps, or rows a command assembled.
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual std::vector<std::string> column_names() const = 0;
  // The next row into `row` (as many cells as columns); false after the last.
  virtual bool next(std::vector<QueryCell>& row) = 0;
};

// Rows held in memory.
class RowList final : public RowSource {
 public:
  explicit RowList(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void add(std::vector<QueryCell> row) { rows_.push_back(std::move(row)); }
  std::vector<std::string> column_names() const override { return columns_; }
  bool next(std::vector<QueryCell>& row) override;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<QueryCell>> rows_;
  std::size_t next_ = 0;
};

// `text` as one CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

// Reads every row of `rows` and writes them to `out`. Throws RunnerError (failure) after printing
// kTableRowLimit rows of a table that has more.
void write_rows(RowSource& rows, QueryFormat format, std::ostream& out);

// The same for the rows of a statement, stepped to its end.
void write_query_rows(Statement& statement, QueryFormat format, std::ostream& out);

}  // namespace mt
