// mtengine: flags -> subcommand table -> exit code. All work lives in mtengine_lib.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "train/train_cli.h"
#include "train/train_command.h"

namespace {

struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"mtengine: distributed training benchmark engine"};
  cli.require_subcommand(1);

  mt::TrainConfig train_config;
  bool version_json = false;

  std::vector<Subcommand> table;
  {
    auto* train = cli.add_subcommand("train", "train the GPT on synthetic data and measure it");
    mt::add_train_options(*train, train_config);
    table.push_back({train, [&] { return mt::run_train_command(train_config); }});

    auto* version = cli.add_subcommand("version", "versions this binary was built with");
    version->add_flag("--json", version_json, "print JSON");
    table.push_back({version, [&] { return mt::run_version_command(version_json); }});

    auto* doctor = cli.add_subcommand("doctor", "check the build and this machine");
    table.push_back({doctor, [] { return mt::run_doctor_command(); }});
  }

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = cli.exit(e);  // prints help or the error
    return code == 0 ? 0 : 2;
  }

  for (const auto& sub : table)
    if (sub.app->parsed()) return sub.run();
  return 2;
}
