#include "workloads/workload_table.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

#include "training/strategy/strategy_table.h"
#include "training/trainer/train_options.h"
#include "workloads/comm/collective_bench.h"
#include "workloads/comm/comm_command.h"
#include "workloads/doctor/commands.h"
#include "workloads/groups/groups_command.h"
#include "workloads/interop/export_command.h"
#include "workloads/interop/tokens_command.h"
#include "workloads/reshard/reshard_command.h"
#include "workloads/moe/moe_command.h"
#include "workloads/option_table_command.h"
#include "workloads/tp/tp_command.h"
#include "workloads/train/train_command.h"
#include "workloads/verify/verify_command.h"

namespace mt {

nlohmann::json Subcommand::describe() const { return nullptr; }

namespace {

class VerifyCommand : public Subcommand {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("A", config_.a, "a checkpoint step directory")->required();
    app.add_option("B", config_.b, "another checkpoint step directory")->required();
    app.add_option("--output", config_.job.output, "verdict JSON path (written by rank 0)");
  }
  int run() override { return run_verify_command(config_); }

 private:
  VerifyConfig config_;
};

class ExportCommand : public Subcommand {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("STEP_DIR", config_.step_dir, "a published checkpoint step directory")->required();
    app.add_option("OUT", config_.output, "the safetensors file to write")->required();
    app.add_flag("--with-optimizer", config_.with_optimizer,
                 "also write AdamW's moments, as optimizer.exp_avg.NAME and optimizer.exp_avg_sq.NAME");
  }
  int run() override { return run_export_command(config_); }

 private:
  ExportConfig config_;
};

class ReshardCommand : public Subcommand {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("SRC", config_.request.source, "a published checkpoint step directory")->required();
    app.add_option("DST", config_.request.destination, "the checkpoint directory to write the step into")->required();
    app.add_option("--strategy", config_.request.strategy, "the strategy to lay the state out for")->required();
    app.add_option("--bucket-cap-mb", config_.request.bucket_cap_mb,
                   "gradient bucket size the resuming run will use, MiB (0: the strategy's default)");
    app.add_option("--output", config_.job.output, "result JSON path (written by rank 0)");
  }
  int run() override { return run_reshard_command(config_); }

 private:
  ReshardConfig config_;
};

class TokensCommand : public Subcommand {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--seed", config_.seed, "the training run's --seed")->capture_default_str();
    app.add_option("--step", config_.step, "optimizer step (0-based)")->required()->check(CLI::NonNegativeNumber);
    app.add_option("--rank", config_.rank, "the rank whose batch to write")->check(CLI::NonNegativeNumber);
    app.add_option("--world-size", config_.world_size, "ranks in the run")->check(CLI::PositiveNumber);
    // The bounds `train` takes, so every batch a run can train on can be written, and no other.
    app.add_option("--batch-size", config_.batch_size, "sequences per rank per micro-batch")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--seq-length", config_.seq_length, "tokens per sequence")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--vocab-size", config_.vocab_size, "vocabulary size")
        ->capture_default_str()
        ->check(CLI::Range(2, 1 << 24));
    app.add_option("--grad-accum-steps,--gradient-accumulation-steps", config_.grad_accum_steps,
                   "micro-batches per optimizer step")
        ->capture_default_str()
        ->check(CLI::Range(1, 65536));
    // Every number here is the same batch's coordinates as `train` reads them: decimal, as there.
    for (const char* name : {"--seed", "--step", "--rank", "--world-size", "--batch-size", "--seq-length",
                             "--vocab-size", "--grad-accum-steps"})
      app.get_option(name)->check(decimal_whole_number());
    app.add_option("--output", config_.output, "the safetensors file to write")->required();
  }
  int run() override { return run_tokens_command(config_); }

 private:
  TokensConfig config_;
};

class VersionCommand : public Subcommand {
 public:
  void add_options(CLI::App& app) override { app.add_flag("--json", json_, "print JSON"); }
  int run() override { return run_version_command(json_); }

 private:
  bool json_ = false;
};

class DoctorCommand : public Subcommand {
 public:
  void add_options(CLI::App&) override {}
  int run() override { return run_doctor_command(); }
};

class DescribeCommand : public Subcommand {
 public:
  void add_options(CLI::App&) override {}
  int run() override {
    std::cout << describe_engine().dump(2) << '\n';
    return 0;
  }
};

template <typename Config>
std::unique_ptr<Subcommand> table_command(const char* name, OptionTable (*make_table)(Config&),
                                          int (*run)(const Config&)) {
  return std::make_unique<OptionTableCommand<Config>>(name, make_table, run);
}

nlohmann::json describe_collectives() {
  auto out = nlohmann::json::array();
  for (const auto* bench : collective_benches()) {
    nlohmann::json factors = nlohmann::json::object();
    for (int world = 2; world <= 8; ++world) factors[std::to_string(world)] = bench->bus_factor(world);
    out.push_back({{"name", bench->name()},
                   {"bus_factor", factors},
                   {"in_place", bench->supports_in_place()},
                   {"out_of_place", bench->supports_out_of_place()},
                   {"splits", bench->has_splits()}});
  }
  return out;
}

}  // namespace

const std::vector<WorkloadEntry>& workload_table() {
  static const std::vector<WorkloadEntry> table = {
      {"train", "train the GPT on synthetic data and measure it",
       [] { return table_command("train", train_option_table, run_train_command); }},
      {"comm", "collective benchmarks with correctness checks (nccl-tests style)",
       [] { return table_command("comm", comm_option_table, run_comm_command); }},
      {"moe", "expert-parallel dispatch and combine with skewed routing, with an oracle",
       [] { return table_command("moe", moe_option_table, run_moe_command); }},
      {"tp", "tensor and sequence parallelism checked against the unsplit computation",
       [] { return table_command("tp", tp_option_table, run_tp_command); }},
      {"groups", "TP x PP x DP process groups: membership, per-dimension time, order hazard",
       [] { return table_command("groups", groups_option_table, run_groups_command); }},
      {"verify", "compare two checkpoints component by component (run at their world size under mpirun)",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<VerifyCommand>(); }},
      {"export", "write a checkpoint's full model as safetensors under nanoGPT's names (any strategy, any world size)",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<ExportCommand>(); }},
      {"reshard", "rewrite a checkpoint for another strategy and world size (run under mpirun -np N)",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<ReshardCommand>(); }},
      {"tokens", "write the synthetic batch a rank trains on at a step, as safetensors",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<TokensCommand>(); }},
      {"version", "versions this binary was built with",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<VersionCommand>(); }},
      {"doctor", "check the build and this machine",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<DoctorCommand>(); }},
      {"describe", "print every subcommand with its flags, the strategies and the collectives as JSON",
       []() -> std::unique_ptr<Subcommand> { return std::make_unique<DescribeCommand>(); }},
  };
  return table;
}

nlohmann::json describe_engine() {
  auto subcommands = nlohmann::json::array();
  for (const auto& entry : workload_table())
    subcommands.push_back({{"name", entry.name}, {"help", entry.help}, {"options", entry.make()->describe()}});
  auto strategies = nlohmann::json::array();
  for (const auto& entry : strategy_table())
    strategies.push_back({{"name", entry.name},
                          {"auto_gradient_sync_mode", sync_mode_name(entry.auto_sync_mode)},
                          {"reference", std::string_view(entry.name) == reference_strategy()}});
  return {{"schema_version", 1},  // of this description's own layout
          {"subcommands", subcommands},
          {"strategies", strategies},
          {"collectives", describe_collectives()}};
}

}  // namespace mt
