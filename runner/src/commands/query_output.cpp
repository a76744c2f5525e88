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

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string cell_text(const Statement& s, int i) { return s.is_null(i) ? "" : s.text(i); }

std::vector<std::string> column_names(const Statement& s) {
  std::vector<std::string> names;
  for (int i = 0; i < s.column_count(); ++i) names.push_back(s.column_name(i));
  return names;
}

void write_csv(Statement& s, std::ostream& out) {
  std::string line;
  for (const auto& name : column_names(s)) line += (line.empty() ? "" : ",") + csv_escape(name);
  out << line << '\n';
  while (out && s.step()) {
    line.clear();
    for (int i = 0; i < s.column_count(); ++i) line += (i ? "," : "") + csv_escape(cell_text(s, i));
    out << line << '\n';
  }
}

// The same bytes as one JSON array dumped with an indent of 2, one row object at a time.
void write_json(Statement& s, std::ostream& out) {
  const auto header = column_names(s);
  bool first = true;
  while (out && s.step()) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (int i = 0; i < s.column_count(); ++i) {
      if (s.is_null(i)) {
        row[header[size_t(i)]] = nullptr;
      } else if (s.is_number(i)) {
        row[header[size_t(i)]] = s.real(i);
      } else {
        row[header[size_t(i)]] = s.text(i);
      }
    }
    std::string text = row.dump(2);  // strings escape their newlines, so every '\n' starts a line
    std::string indented = "  ";
    for (char c : text) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
    out << (first ? "[\n" : ",\n") << indented;
    first = false;
  }
  out << (first ? "[]\n" : "\n]\n");
}

void write_table(Statement& s, std::ostream& out) {
  TextTable table(column_names(s));
  std::size_t rows = 0;
  bool more = false;
  while (s.step()) {
    if (rows == kTableRowLimit) {
      more = true;
      break;
    }
    std::vector<std::string> cells;
    for (int i = 0; i < s.column_count(); ++i) cells.push_back(cell_text(s, i));
    table.add_row(std::move(cells));
    ++rows;
  }
  out << table.render();
  if (more) {
    throw RunnerError(kExitFailure, fmt::format("query stopped after {} rows, the most a table shows; use --csv or "
                                                "--json for every row, or LIMIT and OFFSET for a part",
                                                kTableRowLimit));
  }
}

}  // namespace

void write_query_rows(Statement& statement, QueryFormat format, std::ostream& out) {
  switch (format) {
    case QueryFormat::Csv: return write_csv(statement, out);
    case QueryFormat::Json: return write_json(statement, out);
    case QueryFormat::Table: return write_table(statement, out);
  }
}

}  // namespace mt
