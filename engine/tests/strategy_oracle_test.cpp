// Data-parallel oracle for every strategy: N ranks with batch b each, driven
// through the strategy exactly as the trainer drives it, must follow the loss trajectory of one
// process stepping on the N·b global batch (rank 0's samples, then rank 1's, ...) for several
// steps, and end with the same parameters. Each rank computes the single-process reference
// itself: the data is deterministic. Runs twice: AdamW (the trainer's fused AdamW here, torch's
// in the reference, so the fused one is checked against torch too) and SGD with lr 1,
// which moves each weight by exactly its gradient, so a wrongly scaled or partial reduction
// shows directly (AdamW's first steps are nearly scale-invariant and could hide one).
//
// usage: mpirun -np N strategy_oracle_test --strategy S [--grad-accum-steps A]
//          [--gradient-sync-mode every|last] [--activation-checkpointing] [--steps K]
//          [--gemm-backend mkl|onednn]   (the strategy's dense layers on that backend; the
//                                         reference keeps ATen's linear)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "core/comm/mpi/mpi_communicator.h"
#include "core/comm/mpi/mpi_control_channel.h"
#include "core/comm/mpi/mpi_session.h"
#include "training/data/synthetic.h"
#include "training/model/activation_checkpoint.h"
#include "training/model/gemm_backend.h"
#include "training/model/gpt.h"
#include "training/strategy/strategy.h"
#include "training/optim/fused_adamw.h"
#include "training/trainer/trainer.h"

namespace {

constexpr uint64_t kSeed = 4242;
constexpr int64_t kBatch = 2;
constexpr double kTolerance = 1e-4;
const mt::ModelConfig kShape{256, 32, 4, 2, 16, 0.0};

struct Options {
  std::string strategy = "ddp";
  int accum = 1;
  std::string sync_mode = "auto";
  bool checkpointing = false;
  int steps = 5;
  std::optional<mt::GemmBackend> gemm_backend;
};

enum class OptimizerKind { sgd, adamw };

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::vector<torch::Tensor>& params, OptimizerKind kind) {
  if (kind == OptimizerKind::sgd) return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(1.0));
  return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(1e-3));
}

mt::TokenBatch batch_of(int64_t micro, int rank) {
  return mt::synthetic_batch(kSeed, micro, rank, kBatch, kShape.seq_length, kShape.vocab_size);
}

struct Trajectory {
  std::vector<double> loss;
  std::vector<torch::Tensor> parameters;
};

// The strategy under test: this rank's samples only.
Trajectory strategy_run(mt::ProcessGroup& group, const Options& o, OptimizerKind kind) {
  mt::Communicator& comm = group.collectives;
  // Rank-dependent initial weights: the strategy's prepare() must make the replicas equal.
  auto model = mt::make_gpt(kShape, kSeed + static_cast<uint64_t>(comm.rank()));
  if (o.checkpointing) model->set_block_runner(mt::checkpointed_runner(model->block_runner()));
  mt::TrainConfig config;
  config.strategy = o.strategy;
  config.bucket_cap_mb = 0.02;  // several buckets even for this tiny model
  config.first_bucket_cap_mb = 0.01;
  const auto* entry = mt::find_strategy(o.strategy);
  const mt::SyncMode mode = o.sync_mode == "every"  ? mt::SyncMode::every
                            : o.sync_mode == "last" ? mt::SyncMode::last
                                                    : entry->auto_sync_mode;
  auto strategy = mt::make_strategy(config, comm, mode, mt::parameter_count(*model) * 4);
  strategy->prepare(*model);
  std::unique_ptr<torch::optim::Optimizer> sgd;
  std::unique_ptr<mt::FusedAdamW> adamw;
  if (kind == OptimizerKind::sgd) sgd = make_optimizer(strategy->optimizer_parameters(), kind);
  else adamw = std::make_unique<mt::FusedAdamW>(strategy->optimizer_parameters(), mt::FusedAdamWOptions{});

  Trajectory out;
  for (int step = 0; step < o.steps; ++step) {
    double local = 0;
    for (int micro = 0; micro < o.accum; ++micro) {
      strategy->before_micro_batch(micro, o.accum);
      const auto batch = batch_of(step * o.accum + micro, comm.rank());
      auto loss = model->loss(batch.inputs, batch.targets);
      mt::backward_loss(*strategy, loss, o.accum).backward();
      strategy->after_backward(micro, o.accum);
      local += loss.item<double>() / o.accum;
    }
    strategy->before_optimizer_step();
    if (adamw) adamw->step();
    else sgd->step();
    strategy->after_optimizer_step();
    strategy->zero_grad();
    out.loss.push_back(group.control.sum(local) / comm.world_size());
  }
  const long expected_rounds = (mode == mt::SyncMode::every ? o.accum : 1) * o.steps;
  if (strategy->sync_rounds() != expected_rounds) {
    std::fprintf(stderr, "rank %d: %ld sync rounds, expected %ld\n", comm.rank(), strategy->sync_rounds(),
                 expected_rounds);
    std::exit(1);
  }
  out.parameters = strategy->full_parameters();
  return out;
}

// The reference: one process, all ranks' samples concatenated into one batch.
Trajectory reference_run(int world_size, const Options& o, OptimizerKind kind) {
  auto model = mt::make_gpt(kShape, kSeed);  // rank 0's initial weights
  auto optimizer = make_optimizer(model->parameters(), kind);
  Trajectory out;
  for (int step = 0; step < o.steps; ++step) {
    double total = 0;
    for (int micro = 0; micro < o.accum; ++micro) {
      std::vector<torch::Tensor> inputs, targets;
      for (int r = 0; r < world_size; ++r) {
        const auto batch = batch_of(step * o.accum + micro, r);
        inputs.push_back(batch.inputs);
        targets.push_back(batch.targets);
      }
      auto loss = model->loss(torch::cat(inputs), torch::cat(targets));
      (loss / o.accum).backward();
      total += loss.item<double>() / o.accum;
    }
    optimizer->step();
    optimizer->zero_grad();
    out.loss.push_back(total);
  }
  for (const auto& p : model->parameters()) out.parameters.push_back(p.detach().clone());
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", arg.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (arg == "--strategy") o.strategy = value();
    else if (arg == "--grad-accum-steps") o.accum = std::stoi(value());
    else if (arg == "--gradient-sync-mode") o.sync_mode = value();
    else if (arg == "--steps") o.steps = std::stoi(value());
    else if (arg == "--activation-checkpointing") o.checkpointing = true;
    else if (arg == "--gemm-backend") {
      o.gemm_backend = mt::parse_gemm_backend(value());
      if (!o.gemm_backend) {
        std::fprintf(stderr, "--gemm-backend: mkl or onednn\n");
        std::exit(2);
      }
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  mt::MpiSession session;
  mt::MpiControlChannel control;
  mt::MpiCommunicator comm(/*timeout_s=*/120);
  mt::ProcessGroup group{control, comm};
  at::set_num_threads(1);

  bool all_match = true;
  for (auto [kind, name] : {std::pair{OptimizerKind::adamw, "adamw"}, {OptimizerKind::sgd, "sgd"}}) {
    mt::pin_gemm_backend(o.gemm_backend);
    const auto tested = strategy_run(group, o, kind);
    mt::pin_gemm_backend(std::nullopt);
    const auto reference = reference_run(comm.world_size(), o, kind);

    double worst_loss = 0;
    for (std::size_t s = 0; s < tested.loss.size(); ++s)
      worst_loss = std::max(worst_loss, std::abs(tested.loss[s] - reference.loss[s]) / std::abs(reference.loss[s]));
    double max_diff = 0, max_update = 0;
    const auto initial = mt::make_gpt(kShape, kSeed)->parameters();
    for (std::size_t i = 0; i < tested.parameters.size(); ++i) {
      max_diff = std::max(max_diff, (tested.parameters[i] - reference.parameters[i]).abs().max().item<double>());
      max_update = std::max(max_update, (reference.parameters[i] - initial[i]).abs().max().item<double>());
    }
    const double worst_param = control.max(max_diff);
    worst_loss = control.max(worst_loss);
    // Guard against a vacuous pass: the steps must actually have moved the weights.
    if (max_update < 1e-4) {
      std::fprintf(stderr, "rank %d: %s barely changed the parameters (%.3g)\n", comm.rank(), name, max_update);
      return 1;
    }
    const bool ok = worst_loss <= kTolerance && worst_param <= kTolerance &&
                    tested.parameters.size() == reference.parameters.size();
    if (comm.rank() == 0)
      std::printf(
          "%s oracle (%s): world %d, grad-accum %d, sync %s%s%s, %d steps: max relative "
          "loss diff %.3g, max |param diff| %.3g (tolerance %.0e) %s\n",
          o.strategy.c_str(), name, comm.world_size(), o.accum, o.sync_mode.c_str(),
          o.checkpointing ? ", activation checkpointing" : "",
          o.gemm_backend ? (std::string(", GEMMs on ") + mt::gemm_backend_name(*o.gemm_backend)).c_str() : "", o.steps,
          worst_loss, worst_param, kTolerance, ok ? "ok" : "MISMATCH");
    all_match = all_match && ok;
  }
  return all_match ? 0 : 1;
}
