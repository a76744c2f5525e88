// mtrun: flags → subcommand → exit code. Everything else lives in mtrun_lib.
#include <signal.h>
#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "process.h"
#include "runner_error.h"
#include "sqlite_db.h"

namespace {

// First Ctrl-C/SIGTERM: stop launching, terminate the running trial cleanly (the run loop does it).
// Second: kill the running job's process group at once and exit.
void on_stop_signal(int) {
  if (mt::g_stop_requested.exchange(true)) {
    int pid = mt::g_running_launcher.load();
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    ::_exit(mt::kExitInterrupted);
  }
  const char msg[] = "\nmtrun: stopping after the running trial is terminated (again to exit now)\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mtrun: declarative experiment runner for distributed training benchmarks"};
  app.require_subcommand(1);
  std::filesystem::path db = "results/mtrun.sqlite";
  app.add_option("--db", db, "results database")->capture_default_str();

  mt::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run the trials of an experiment that have not succeeded yet");
  run_cmd->add_option("FILE", run.experiment, "experiment YAML file")->required();
  run_cmd->add_flag("--force", run.force, "re-run trials that already succeeded");

  mt::PlanOptions plan;
  auto* plan_cmd = app.add_subcommand("plan", "show every trial and its exact command without running");
  plan_cmd->add_option("FILE", plan.experiment, "experiment YAML file")->required();

  std::optional<std::filesystem::path> engine;
  for (auto* cmd : {run_cmd, plan_cmd}) {
    cmd->add_option("--engine", engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  }

  mt::StatusOptions status;
  auto* status_cmd = app.add_subcommand("status", "what ran, what failed and why");
  status_cmd->add_option("--campaign", status.campaign, "campaign id or prefix (default: the latest)");

  mt::QueryOptions query;
  auto* query_cmd = app.add_subcommand("query", "run a read-only SQL query against the database");
  query_cmd->add_option("SQL", query.sql, "SQL; views: training, latest_attempts")->required();
  bool csv = false, json = false;
  query_cmd->add_flag("--csv", csv, "comma-separated output");
  query_cmd->add_flag("--json", json, "JSON array of row objects");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : mt::kExitUsage;
  }
  if (csv && json) {
    std::cerr << "mtrun query: --csv and --json exclude each other\n";
    return mt::kExitUsage;
  }
  query.format = csv ? mt::QueryFormat::Csv : json ? mt::QueryFormat::Json : mt::QueryFormat::Table;
  run.db = status.db = query.db = db;
  run.engine = plan.engine = engine;

  try {
    if (*run_cmd) {
      mt::become_child_subreaper();
      install_signal_handlers();
      return mt::run_command(run, std::cout);
    }
    if (*plan_cmd) return mt::plan_command(plan, std::cout);
    if (*status_cmd) return mt::status_command(status, std::cout);
    if (*query_cmd) return mt::query_command(query, std::cout);
  } catch (const mt::RunnerError& e) {
    std::cout.flush();
    std::cerr << "mtrun: " << e.what() << '\n';
    return e.exit_code();
  } catch (const mt::SqliteError& e) {
    std::cout.flush();
    std::cerr << "mtrun: database error: " << e.what() << '\n';
    return mt::kExitFailure;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "mtrun: " << e.what() << '\n';
    return mt::kExitFailure;
  }
  return mt::kExitUsage;
}
