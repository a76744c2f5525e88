#pragma once
// The subcommands of mtrun. Each prints its normal output to `out`, returns the exit code, and
// throws RunnerError for anything the user must fix.
#include <atomic>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace mt {

struct RunOptions {
  std::filesystem::path experiment;
  std::filesystem::path db;
  std::optional<std::filesystem::path> engine;  // default: $MTENGINE, else beside mtrun
  bool force = false;                           // re-run trials that already succeeded
};

struct PlanOptions {
  std::filesystem::path experiment;
  std::optional<std::filesystem::path> engine;
};

struct StatusOptions {
  std::filesystem::path db;
  std::optional<std::string> campaign;  // default: the most recently run campaign
};

enum class QueryFormat { Table, Csv, Json };

struct QueryOptions {
  std::filesystem::path db;
  std::string sql;
  QueryFormat format = QueryFormat::Table;
};

// Set by main's signal handler: stop launching trials, terminate the running one.
extern std::atomic<bool> g_stop_requested;
// PID of the launcher now running (0 if none), so a second Ctrl-C can kill it at once.
extern std::atomic<int> g_running_launcher;

int run_command(const RunOptions& options, std::ostream& out);
int plan_command(const PlanOptions& options, std::ostream& out);
int status_command(const StatusOptions& options, std::ostream& out);
int query_command(const QueryOptions& options, std::ostream& out);

// mtengine to launch: the explicit path, else $MTENGINE, else the one beside this executable.
std::filesystem::path locate_engine(const std::optional<std::filesystem::path>& explicit_path);

}  // namespace mt
