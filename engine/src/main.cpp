// mtengine: flags -> subcommand table -> exit code. All work lives in mtengine_lib.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "cli/option_table.h"
#include "train/train_command.h"
#include "train/train_options.h"

namespace {

struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

// LibTorch's OpenMP pool and OpenBLAS's own thread pool take turns on the same cores. With
// libgomp's default active waiting, idle OpenMP workers spin through every BLAS call and halve
// training speed on a 2-core machine (measured: ~250 -> ~130 ms per step). libgomp reads the
// policy once, when it is loaded, so the process re-executes itself with it set; an explicit
// OMP_WAIT_POLICY from the user is respected.
void ensure_passive_omp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  ensure_passive_omp_waiting(argv);
  CLI::App cli{"mtengine: distributed training benchmark engine"};
  cli.require_subcommand(1);

  mt::TrainConfig train_config;
  const mt::OptionTable train_options = mt::train_option_table(train_config);
  bool describe_train = false;
  bool version_json = false;

  std::vector<Subcommand> table;
  {
    auto* train = cli.add_subcommand("train", "train the GPT on synthetic data and measure it");
    mt::register_options(*train, train_options);
    train->add_flag("--describe", describe_train,
                    "print every flag with its type, default, allowed values and bounds as JSON "
                    "(what mtrun validates experiments against), then exit");
    table.push_back({train, [&] {
                       if (!describe_train) return mt::run_train_command(train_config);
                       std::cout << mt::describe_options(train_options, "train").dump(2) << '\n';
                       return 0;
                     }});

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
