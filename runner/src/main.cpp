// mtrun: flags → subcommand → exit code. Everything else lives in mtrun_lib.
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checked_output.h"
#include "commands/commands.h"
#include "experiment/suggestion.h"
#include "launch/job_guard.h"
#include "program_version.h"
#include "runner_error.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "table_cell.h"

namespace {

// One line per subcommand; `mtrun --help` lists them in this order.
constexpr mt::CommandRegistration kCommands[] = {
    mt::register_run_command,       mt::register_plan_command,     mt::register_status_command,
    mt::register_campaigns_command, mt::register_show_command,     mt::register_query_command,
    mt::register_rerun_command,     mt::register_doctor_command,   mt::register_report_command,
    mt::register_compare_command,   mt::register_baseline_command, mt::register_history_command,
    mt::register_delete_command,    mt::register_look_command,
};

// First Ctrl-C/SIGTERM/SIGHUP: a command that stops cleanly (run, rerun, query) is told so and says what
// it does (run: stop launching, terminate the running trial); any other exits at once. Second:
// kill the running job's process group at once and exit.
void on_stop_signal(int) {
  const char* notice = mt::g_stop_notice.load();
  if (mt::g_stop_requested.exchange(true) || notice == nullptr) {
    int pid = mt::g_running_launcher.load();
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    for (const auto& slot : mt::g_running_launchers) {  // trials run at the same time (`parallel`)
      if (int other = slot.load(); other > 0) {
        ::kill(-other, SIGKILL);
        ::kill(other, SIGKILL);
      }
    }
    ::_exit(mt::kExitInterrupted);
  }
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, notice, std::strlen(notice));
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A closed terminal: stop as for Ctrl-C, so the running attempt is recorded as interrupted rather
  // than left `running` by a runner that died.
  sigaction(SIGHUP, &action, nullptr);
}

// `mtrun FILE [options]` means `mtrun run FILE [options]`, as users type it: when the first
// positional word (after global options) is an experiment file, "run" goes before it.
std::vector<std::string> with_default_subcommand(int argc, char** argv, const CLI::App& app) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--db") {
      ++i;  // its value
      continue;
    }
    if (word.rfind("-", 0) == 0) continue;  // --db=X, --help, ...
    const bool experiment_file =
        word.size() > 5 && (word.rfind(".yaml") == word.size() - 5 || word.rfind(".yml") == word.size() - 4);
    if (experiment_file || std::filesystem::is_regular_file(word))
      args.insert(args.begin() + static_cast<long>(i), "run");
    return args;  // a subcommand, or a word CLI11 will report
  }
  return args;
}

void print_error(const std::string& message) { std::cerr << "mtrun: " << message << '\n'; }

// The names of `app`'s commands.
std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The command as given, from mtrun down to the deepest one chosen (`mtrun baseline set`), and how
// it reads.
std::vector<const CLI::App*> command_path(const CLI::App& app) {
  std::vector<const CLI::App*> path = {&app};
  while (!path.back()->get_subcommands().empty()) path.push_back(path.back()->get_subcommands().front());
  return path;
}
std::string command_usage(const std::vector<const CLI::App*>& path) {
  std::string usage = "mtrun";
  for (std::size_t i = 1; i < path.size(); ++i) usage += " " + path[i]->get_name();
  return usage;
}

// The long options ("--db") of the commands in `path`.
std::vector<std::string> option_names(const std::vector<const CLI::App*>& path) {
  std::vector<std::string> names;
  for (const CLI::App* level : path) {
    for (const CLI::Option* option : level->get_options()) {
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    }
  }
  return names;
}

// "unknown option '--dbb' (did you mean '--db'?); ...": an option mtrun itself does not take.
std::string unknown_mtrun_option(const std::string& name, const CLI::App& app) {
  return "unknown option '" + mt::escape_control_characters(name) + "'" + mt::did_you_mean(name, option_names({&app})) +
         "; `mtrun --help` lists the options and commands";
}

// An option before the command that mtrun does not take (`mtrun --dbb x.sqlite campaigns`), named
// as mtrun's own: otherwise the file after it would be taken for an experiment to run, and the
// option blamed on `mtrun run`. Empty when every word before the command is one of mtrun's options.
std::string unknown_global_option(const std::vector<std::string>& args, const CLI::App& app) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--" || word.rfind("-", 0) != 0 || word.size() == 1) return "";  // the command, or a file
    const std::string name = word.substr(0, word.find('='));
    if (const CLI::Option* option = app.get_option_no_throw(name)) {
      if (option->get_type_size() > 0 && name.size() == word.size()) ++i;  // its value follows
      continue;
    }
    return unknown_mtrun_option(name, app);
  }
  return "";
}

// CLI11 says "CAMPAIGN is required" or "--min-change: Value x could not be converted" without the
// command it is about, and "A subcommand is required" to a bare `mtrun`: name the command, or say
// what mtrun takes.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const auto path = command_path(app);
  if (path.size() == 1 && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && app.remaining(true).empty()) {
    return "`mtrun` needs a command, or an experiment file to run (`mtrun FILE`); `mtrun --help` lists the commands";
  }
  const std::string usage = command_usage(path);
  return fmt::format("`{}`: {}; `{} --help` says what it takes", usage, error.what(), usage);
}

// CLI11 lists the words it did not expect ("The following arguments were not expected: x.sqlite
// --database") or says "A subcommand is required" for a mistyped or missing one: name the first
// unknown option or command instead, with what it most likely stands for (an option of the command
// it was given to or of mtrun's own), or the commands a command such as `baseline` takes. Empty
// when CLI11's own message is the better one.
std::string unknown_word_message(const CLI::App& app) {
  const std::vector<std::string> left = app.remaining(true);
  if (app.get_subcommands().empty()) {
    if (left.empty()) return "";
    if (left.front().rfind("--", 0) == 0 && left.front().size() > 2) {
      const std::string name = left.front().substr(0, left.front().find('='));
      return unknown_mtrun_option(name, app);
    }
    if (left.front().rfind("-", 0) == 0) return "";
    return "unknown command '" + mt::escape_control_characters(left.front()) + "'" +
           mt::did_you_mean(left.front(), command_names(app)) +
           "; `mtrun --help` lists the commands (and `mtrun FILE` runs an experiment file)";
  }
  const std::vector<const CLI::App*> path = command_path(app);
  const CLI::App* command = path.back();
  const std::string usage = command_usage(path);

  const std::vector<std::string> known = option_names(path);
  for (const auto& word : left) {
    if (word.rfind("--", 0) != 0 || word.size() == 2) continue;
    const std::string name = word.substr(0, word.find('='));
    return "unknown option '" + mt::escape_control_characters(name) + "' for `" + usage + "`" +
           mt::did_you_mean(name, known) + "; `" + usage + " --help` lists its options";
  }
  // A command made of commands (`mtrun baseline set|list|delete`) given none, or a mistyped one.
  const std::vector<std::string> commands = command_names(*command);
  if (!commands.empty()) {
    if (left.empty() || left.front().rfind("-", 0) == 0) {
      return fmt::format("`{}` needs one of its commands: {}; `{} --help` says what each does", usage,
                         fmt::join(commands, ", "), usage);
    }
    return fmt::format("unknown command '{}' for `{}`{}; its commands: {}", mt::escape_control_characters(left.front()),
                       usage, mt::did_you_mean(left.front(), commands), fmt::join(commands, ", "));
  }
  if (left.empty()) return "";
  std::string words;
  for (const auto& word : left) words += (words.empty() ? "'" : ", '") + mt::escape_control_characters(word) + "'";
  return fmt::format("`{}` does not take {}; `{} --help` says what it takes", usage, words, usage);
}

// Runs the chosen subcommand, printing to `out`; returns its exit code, having printed its error.
int run_command(const mt::CommandRunner& run, const std::filesystem::path& db, std::ostream& out) {
  auto failed = [&](const std::string& message, int exit_code) {
    out.flush();  // what the command printed comes before why it stopped
    print_error(message);
    return exit_code;
  };
  try {
    return run(out);
  } catch (const mt::RunnerError& e) {
    return failed(e.what(), e.exit_code());
  } catch (const mt::SqliteError& e) {
    // Ctrl-C during a wait for another connection's lock: an interruption, as any other.
    if (e.code() == SQLITE_BUSY && mt::g_stop_requested) {
      return failed(fmt::format("stopped while waiting for {}, which another connection holds locked; the next run "
                                "or rerun records the attempt left running as interrupted",
                                mt::escape_control_characters(db.string())),
                    mt::kExitInterrupted);
    }
    // A database that cannot be opened or read at all is bad input; anything else failed on the way.
    const bool unusable = e.code() == SQLITE_NOTADB || e.code() == SQLITE_CORRUPT || e.code() == SQLITE_CANTOPEN ||
                          e.code() == SQLITE_READONLY || e.code() == SQLITE_PERM;
    // Named, since --db may have been left at its default: which file is damaged is the first question.
    std::string message = fmt::format("database error in {}: {}", mt::escape_control_characters(db.string()), e.what());
    if (e.code() == SQLITE_CORRUPT) message += mt::escape_control_characters(mt::foreign_wal_hint(db));
    return failed(message, unusable ? mt::kExitUsage : mt::kExitFailure);
  } catch (const std::exception& e) {
    return failed(e.what(), mt::kExitFailure);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == mt::kGuardSubcommand) return mt::run_job_guard(argc - 2, argv + 2);
  CLI::App app{
      "mtrun: declarative experiment runner for distributed training benchmarks\n"
      "`mtrun FILE` is `mtrun run FILE`",
      "mtrun"};
  app.set_version_flag("--version", mt::program_version_text(),
                       "print the version, the build revision and the "
                       "database schema version, and exit");
  app.require_subcommand(1);
  app.fallthrough();  // inherited by every subcommand: `mtrun run FILE --db X` means `mtrun --db X run FILE`
  mt::GlobalOptions global;
  app.add_option("--db", global.db, "results database (before or after the subcommand)")->capture_default_str();

  std::vector<std::pair<CLI::App*, mt::CommandRunner>> commands;
  for (auto registration : kCommands) {
    mt::CommandRunner runner = registration(app, global);
    commands.emplace_back(app.get_subcommands({}).back(), std::move(runner));
  }
  // Every write to standard output is checked (help included): one that fails is exit kExitWrite.
  mt::FdOutput stdout_buffer(STDOUT_FILENO);
  std::ostream out(&stdout_buffer);
  int rc = mt::kExitUsage;
  try {
    if (std::string unknown = unknown_global_option({argv + 1, argv + argc}, app); !unknown.empty()) {
      print_error(unknown);
      return mt::kExitUsage;
    }
    auto args = with_default_subcommand(argc, argv, app);
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
    install_signal_handlers();
    for (auto& [subcommand, run] : commands) {
      if (*subcommand) {
        rc = run_command(run, global.db, out);
        break;
      }
    }
  } catch (const CLI::ParseError& e) {
    std::string unknown = e.get_exit_code() != 0 ? unknown_word_message(app) : "";  // not --help
    if (unknown.empty() && e.get_exit_code() != 0) unknown = parse_error_message(app, e);
    if (unknown.empty()) {
      rc = app.exit(e, out, std::cerr) == 0 ? mt::kExitOk : mt::kExitUsage;
    } else {
      print_error(unknown);
      rc = mt::kExitUsage;
    }
  }

  out.flush();
  if (stdout_buffer.error() != 0) {
    print_error(mt::stdout_write_error(stdout_buffer.error()));
    return mt::kExitWrite;
  }
  return rc;
}
