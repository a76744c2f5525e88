// A subcommand driven by one option table (train, comm, moe, tp, groups): registers the table's
// flags and `--describe`, checks nothing itself (the workload validates), and runs the workload
// on the parsed configuration.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "core/cli/option_table.h"
#include "workloads/workload_table.h"

namespace mt {

template <typename Config>
class OptionTableCommand : public Subcommand {
 public:
  using MakeTable = OptionTable (*)(Config&);
  using Run = int (*)(const Config&);

  OptionTableCommand(std::string name, MakeTable make_table, Run run)
      : name_(std::move(name)), table_(make_table(config_)), run_(run) {}
  OptionTableCommand(const OptionTableCommand&) = delete;  // the table points into config_
  OptionTableCommand& operator=(const OptionTableCommand&) = delete;

  void add_options(CLI::App& app) override {
    register_options(app, table_);
    app.add_flag("--describe", describe_,
                 "print every flag with its type, default, allowed values and bounds as JSON "
                 "(what mtrun validates experiments against), then exit");
  }

  int run() override {
    if (!describe_) return run_(config_);
    std::cout << describe().dump(2) << '\n';
    return 0;
  }

  nlohmann::json describe() const override { return describe_options(table_, name_); }

 private:
  std::string name_;
  Config config_;  // declared before table_, which holds pointers into it
  OptionTable table_;
  Run run_;
  bool describe_ = false;
};

}  // namespace mt
