// mtrun query SQL: answers questions from the database on a read-only connection.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "commands/campaign_selection.h"
#include "commands/commands.h"
#include "runner_error.h"
#include "store/sqlite_db.h"
#include "text_table.h"

namespace mt {
namespace {

enum class QueryFormat { Table, Csv, Json };

struct QueryOptions {
  std::filesystem::path db;
  std::string sql;
  QueryFormat format = QueryFormat::Table;
};

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string cell_text(Statement& s, int i) {
  if (s.is_null(i)) return "";
  return s.text(i);
}

int run_query(const QueryOptions& options, std::ostream& out) {
  require_database(options.db);
  Database db(options.db, Database::Mode::ReadOnly);
  db.exec("PRAGMA query_only = ON");
  try {
    Statement s = db.prepare(options.sql);
    std::vector<std::string> header;
    for (int i = 0; i < s.column_count(); ++i) header.push_back(s.column_name(i));
    TextTable table(header);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    if (options.format == QueryFormat::Csv) {
      std::string line;
      for (const auto& h : header) line += (line.empty() ? "" : ",") + csv_escape(h);
      out << line << '\n';
    }
    while (s.step()) {
      std::vector<std::string> cells;
      nlohmann::ordered_json row = nlohmann::ordered_json::object();
      for (int i = 0; i < s.column_count(); ++i) {
        cells.push_back(cell_text(s, i));
        if (s.is_null(i)) {
          row[header[i]] = nullptr;
        } else if (s.is_number(i)) {
          row[header[i]] = s.real(i);
        } else {
          row[header[i]] = s.text(i);
        }
      }
      if (options.format == QueryFormat::Csv) {
        std::string line;
        for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_escape(cells[i]);
        out << line << '\n';
      } else if (options.format == QueryFormat::Json) {
        rows.push_back(std::move(row));
      } else {
        table.add_row(std::move(cells));
      }
    }
    if (options.format == QueryFormat::Json) out << rows.dump(2) << '\n';
    if (options.format == QueryFormat::Table) out << table.render();
  } catch (const SqliteError& e) {
    std::string message = e.what();
    if (message.find("readonly") != std::string::npos || message.find("query_only") != std::string::npos) {
      throw RunnerError(kExitUsage, "mtrun query is read-only; statements that change the database are refused (" +
                                        message + ")");
    }
    throw RunnerError(kExitUsage, "query failed: " + message);
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
  return [options, csv, json, &global](std::ostream& out) {
    options->db = global.db;
    options->format = *csv ? QueryFormat::Csv : *json ? QueryFormat::Json : QueryFormat::Table;
    return run_query(*options, out);
  };
}

}  // namespace mt
