#include "commands/query_output.h"

#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner_error.h"
#include "text_table.h"

namespace mt {
namespace {

// A statement's rows, each value with the type SQLite gives that value (not its column's).
class StatementRows final : public RowSource {
 public:
  explicit StatementRows(Statement& s) : s_(s) {}
  std::vector<std::string> column_names() const override {
    std::vector<std::string> names;
    for (int i = 0; i < s_.column_count(); ++i) names.push_back(s_.column_name(i));
    return names;
  }
  bool next(std::vector<QueryCell>& row) override {
    if (!s_.step()) return false;
    row.resize(size_t(s_.column_count()));
    for (int i = 0; i < s_.column_count(); ++i) {
      QueryCell& cell = row[size_t(i)];
      if (s_.is_null(i)) {
        cell = QueryCell::null();
      } else if (s_.is_integer(i)) {
        cell = QueryCell::of(std::int64_t(s_.integer(i)));
      } else if (s_.is_number(i)) {
        cell = QueryCell::of_real(s_.real(i), s_.text(i));
      } else if (s_.is_blob(i)) {
        cell = QueryCell::of_blob(s_.blob(i));
      } else {
        cell = QueryCell::of(s_.blob(i));  // every byte of the text, past a NUL too
      }
    }
    return true;
  }

 private:
  Statement& s_;
};

void write_csv(RowSource& rows, std::ostream& out) {
  std::string line;
  for (const auto& name : rows.column_names()) line += (line.empty() ? "" : ",") + csv_field(name);
  out << line << '\n';
  std::vector<QueryCell> row;
  while (out && rows.next(row)) {
    line.clear();
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_field(row[i].text);
    out << line << '\n';
  }
}

nlohmann::ordered_json json_value(const QueryCell& cell) {
  switch (cell.kind) {
    case QueryCell::Kind::Null: return nullptr;
    case QueryCell::Kind::Integer: return cell.integer;  // 1, not 1.0
    case QueryCell::Kind::Real: return cell.real;
    case QueryCell::Kind::Text:
    case QueryCell::Kind::Blob: return cell.text;
  }
  return nullptr;
}

// The same bytes as one JSON array dumped with an indent of 2, one row object at a time.
void write_json(RowSource& rows, std::ostream& out) {
  const auto header = rows.column_names();
  bool first = true;
  std::vector<QueryCell> cells;
  while (out && rows.next(cells)) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (size_t i = 0; i < cells.size(); ++i) row[header[i]] = json_value(cells[i]);
    // Strings escape their newlines, so every '\n' starts a line; text that is not UTF-8 (SQLite
    // stores whatever bytes it is given) is replaced, not an error halfway through the array.
    std::string text = row.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::string indented = "  ";
    for (char c : text) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
    out << (first ? "[\n" : ",\n") << indented;
    first = false;
  }
  out << (first ? "[]\n" : "\n]\n");
}

void write_table(RowSource& rows, std::ostream& out) {
  TextTable table(rows.column_names());
  std::size_t count = 0;
  bool more = false;
  std::vector<QueryCell> row;
  while (rows.next(row)) {
    if (count == kTableRowLimit) {
      more = true;
      break;
    }
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(cell.text);
    table.add_row(std::move(cells));
    ++count;
  }
  out << table.render();
  if (more) {
    throw RunnerError(kExitFailure, fmt::format("query stopped after {} rows, the most a table shows; use --csv or "
                                                "--json for every row, or LIMIT and OFFSET for a part",
                                                kTableRowLimit));
  }
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

QueryCell QueryCell::of_blob(const std::string& bytes) {
  std::string hex = "x'";
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return {Kind::Blob, 0, 0, hex + "'"};
}

bool RowList::next(std::vector<QueryCell>& row) {
  if (next_ == rows_.size()) return false;
  row = rows_[next_++];
  return true;
}

void write_rows(RowSource& rows, QueryFormat format, std::ostream& out) {
  switch (format) {
    case QueryFormat::Csv: return write_csv(rows, out);
    case QueryFormat::Json: return write_json(rows, out);
    case QueryFormat::Table: return write_table(rows, out);
  }
}

void write_query_rows(Statement& statement, QueryFormat format, std::ostream& out) {
  StatementRows rows(statement);
  write_rows(rows, format, out);
}

}  // namespace mt
