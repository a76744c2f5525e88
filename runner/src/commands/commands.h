#pragma once
// The subcommands of mtrun. Each registers its flags on the CLI and returns the function that runs
// it; that function prints normal output to `out`, returns the exit code, and throws RunnerError
// for anything the user must fix. main() owns the table of them.
#include <atomic>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace mt {

// Options every subcommand sees.
struct GlobalOptions {
  std::filesystem::path db = "results/mtrun.sqlite";
};

using CommandRunner = std::function<int(std::ostream& out)>;

// Each adds one subcommand to `app` and returns how to run it once flags are parsed.
using CommandRegistration = CommandRunner (*)(CLI::App& app, const GlobalOptions& global);

CommandRunner register_run_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_plan_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_status_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_query_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_rerun_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_doctor_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_report_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_compare_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_baseline_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_history_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_campaigns_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_show_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_delete_command(CLI::App& app, const GlobalOptions& global);
CommandRunner register_look_command(CLI::App& app, const GlobalOptions& global);

// Set by main's signal handler: stop launching trials, terminate the running one.
extern std::atomic<bool> g_stop_requested;
// PID of the launcher now running (0 if none), so a second Ctrl-C can kill it at once.
extern std::atomic<int> g_running_launcher;
// The launchers of trials running at the same time (`parallel`), one entry per trial in flight.
inline constexpr int kMostParallel = 64;
extern std::atomic<int> g_running_launchers[kMostParallel];
// What main's handler prints at the first Ctrl-C/SIGTERM. Null: the command does not stop cleanly,
// so the first one exits at once (130). Commands that watch g_stop_requested set it.
extern std::atomic<const char*> g_stop_notice;

// Where a campaign's attempt directories go: beside the database, runs/<database file name>/<campaign>/.
// A campaign's id is the same in every database (the same experiment at the same revision), so
// each database keeps its runs apart: two in one folder never write over each other's attempts.
std::filesystem::path campaign_runs_dir(const std::filesystem::path& db, const std::string& campaign_id);

// This mtrun's own executable (jobs start under it as their guard; mtengine is looked for beside it).
std::filesystem::path mtrun_executable();

// mtengine to launch: the explicit path, else $MTENGINE, else the one beside this executable.
std::filesystem::path locate_engine(const std::optional<std::filesystem::path>& explicit_path);

}  // namespace mt
