// mtengine: flags -> subcommand table -> exit code. All work lives in mtengine_lib; the table is
// workloads/workload_table.cpp.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cli/closest_names.h"
#include "core/env/omp_wait_policy.h"
#include "workloads/workload_table.h"

namespace {

// libgomp reads its wait policy once, when it is loaded, so where the layout calls for PASSIVE
// (omp_wait_policy.h: only where ranks × threads oversubscribe the cores) the process re-executes
// itself with it set; an OMP_WAIT_POLICY from the user is respected.
void choose_omp_waiting(int argc, char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  if (!mt::wait_passively(mt::current_thread_layout(argc, argv))) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with the default policy
}

// CLI11 lists the words it did not expect last first ("The following arguments were not expected: 3
// --no-such-flag") and says only "A subcommand is required" for a mistyped one: name the first
// unknown option or command instead, the ones meant, and where the right ones are listed. Empty
// when nothing was left unparsed.
std::string unknown_word_message(const CLI::App& cli) {
  const std::vector<std::string> left = cli.remaining(true);
  if (left.empty()) return "";
  if (cli.get_subcommands().empty()) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : cli.get_subcommands([](const CLI::App*) { return true; }))
      commands.push_back(sub->get_name());
    const std::string word = left.front().substr(0, left.front().find('='));
    // An option before any command may be a command written as a flag (`--version`).
    const std::string what = word.rfind('-', 0) == 0 ? "option" : "command";
    return "mtengine: unknown " + what + " '" + word + "'" + mt::did_you_mean_text(word, commands) +
           "; `mtengine --help` lists the commands";
  }
  const CLI::App& sub = *cli.get_subcommands().back();
  const std::string command = "mtengine " + sub.get_name();
  for (const auto& word : left) {
    if (word.rfind("--", 0) == 0 && word.size() > 2) {
      const std::string flag = word.substr(0, word.find('='));
      std::vector<std::string> flags;
      for (const CLI::Option* option : sub.get_options())
        for (const auto& name : option->get_lnames()) flags.push_back("--" + name);
      return command + ": unknown option '" + flag + "'" + mt::did_you_mean_text(flag, flags) + "; `" + command +
             " --help` lists its options";
    }
  }
  std::string words;
  for (const auto& word : left) words += (words.empty() ? "'" : ", '") + word + "'";
  return command + " does not take " + words + "; `" + command + " --help` says what it takes";
}

// CLI11's other messages ("Could not convert: --steps = x", "OUT is required") name neither the
// program nor the command: both are added, and where the right flags are listed.
std::string parse_error_message(const CLI::App& cli, const CLI::ParseError& e) {
  const auto parsed = cli.get_subcommands();
  if (parsed.empty()) {
    const std::string what = dynamic_cast<const CLI::RequiredError*>(&e) ? "a command is required" : e.what();
    return "mtengine: " + what + "; `mtengine --help` lists the commands";
  }
  const std::string command = "mtengine " + parsed.back()->get_name();
  return command + ": " + e.what() + "; `" + command + " --help` says what it takes";
}

// What a command prints is its result (version --json, --describe, a table): one lost to a full
// disk or a closed pipe is a failure, not a success with nothing to show.
int with_standard_output_checked(int code) {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || std::cout.fail();
  if (!failed) return code;
  std::fprintf(stderr, "mtengine: cannot write to standard output%s%s\n", errno ? ": " : "",
               errno ? std::strerror(errno) : "");
  return code != 0 ? code : 1;
}

}  // namespace

int main(int argc, char** argv) {
  choose_omp_waiting(argc, argv);
  CLI::App cli{"mtengine: distributed training benchmark engine"};
  cli.require_subcommand(1);

  std::vector<std::pair<CLI::App*, std::unique_ptr<mt::Subcommand>>> commands;
  for (const auto& entry : mt::workload_table()) {
    auto* app = cli.add_subcommand(entry.name, entry.help);
    auto command = entry.make();
    command->add_options(*app);
    commands.emplace_back(app, std::move(command));
  }

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const std::string unknown = e.get_exit_code() != 0 ? unknown_word_message(cli) : "";  // not --help
    if (!unknown.empty()) {
      std::cerr << unknown << '\n';
      return 2;
    }
    if (e.get_exit_code() == 0) return cli.exit(e);  // --help: prints it
    std::cerr << parse_error_message(cli, e) << '\n';
    return 2;
  }
  for (auto& [app, command] : commands)
    if (app->parsed()) return with_standard_output_checked(command->run());
  return 2;
}
