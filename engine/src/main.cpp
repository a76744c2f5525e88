// mtengine: flags -> subcommand table -> exit code. All work lives in mtengine_lib.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "workloads/doctor/commands.h"
#include "core/cli/option_table.h"
#include "workloads/train/train_command.h"
#include "training/trainer/train_options.h"
#include "workloads/comm/comm_command.h"
#include "workloads/moe/moe_command.h"
#include "workloads/groups/groups_command.h"
#include "workloads/tp/tp_command.h"
#include "workloads/verify/verify_command.h"

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
  mt::VerifyConfig verify_config;
  mt::CommConfig comm_config;
  const mt::OptionTable comm_options = mt::comm_option_table(comm_config);
  bool describe_comm = false;
  mt::MoeConfig moe_config;
  const mt::OptionTable moe_options = mt::moe_option_table(moe_config);
  bool describe_moe = false;
  mt::TpConfig tp_config;
  const mt::OptionTable tp_options = mt::tp_option_table(tp_config);
  bool describe_tp = false;
  mt::GroupsConfig groups_config;
  const mt::OptionTable groups_options = mt::groups_option_table(groups_config);
  bool describe_groups = false;
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

    auto* comm = cli.add_subcommand("comm", "collective benchmarks with correctness checks (nccl-tests style)");
    mt::register_options(*comm, comm_options);
    comm->add_flag("--describe", describe_comm, "print every flag as JSON, then exit");
    table.push_back({comm, [&] {
                       if (!describe_comm) return mt::run_comm_command(comm_config);
                       std::cout << mt::describe_options(comm_options, "comm").dump(2) << '\n';
                       return 0;
                     }});

    auto* moe = cli.add_subcommand("moe", "expert-parallel dispatch and combine with skewed routing, with an oracle");
    mt::register_options(*moe, moe_options);
    moe->add_flag("--describe", describe_moe, "print every flag as JSON, then exit");
    table.push_back({moe, [&] {
                       if (!describe_moe) return mt::run_moe_command(moe_config);
                       std::cout << mt::describe_options(moe_options, "moe").dump(2) << '\n';
                       return 0;
                     }});

    auto* tp = cli.add_subcommand("tp", "tensor and sequence parallelism checked against the unsplit computation");
    mt::register_options(*tp, tp_options);
    tp->add_flag("--describe", describe_tp, "print every flag as JSON, then exit");
    table.push_back({tp, [&] {
                       if (!describe_tp) return mt::run_tp_command(tp_config);
                       std::cout << mt::describe_options(tp_options, "tp").dump(2) << '\n';
                       return 0;
                     }});

    auto* groups = cli.add_subcommand("groups", "TP x PP x DP process groups: membership, per-dimension time, order hazard");
    mt::register_options(*groups, groups_options);
    groups->add_flag("--describe", describe_groups, "print every flag as JSON, then exit");
    table.push_back({groups, [&] {
                       if (!describe_groups) return mt::run_groups_command(groups_config);
                       std::cout << mt::describe_options(groups_options, "groups").dump(2) << '\n';
                       return 0;
                     }});

    auto* verify = cli.add_subcommand(
        "verify", "compare two checkpoints component by component (run at their world size under mpirun)");
    verify->add_option("A", verify_config.a, "a checkpoint step directory")->required();
    verify->add_option("B", verify_config.b, "another checkpoint step directory")->required();
    verify->add_option("--output", verify_config.output, "verdict JSON path (written by rank 0)");
    table.push_back({verify, [&] { return mt::run_verify_command(verify_config); }});

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
