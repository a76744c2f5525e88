// Data-parallel oracle (DESIGN.md §4): one DDP optimizer step on 2 ranks, batch b per rank, must
// give the same parameters as one process stepping on the 2b global batch (rank 0's samples then
// rank 1's). Each rank computes the single-process reference itself: the data is deterministic.
//
// usage: mpirun -np 2 ddp_oracle_test [--grad-accum-steps N] [--gradient-sync-mode every|last]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "comm/mpi_communicator.h"
#include "data/synthetic.h"
#include "model/gpt.h"
#include "strategy/strategy.h"

namespace {

constexpr uint64_t kSeed = 4242;
constexpr int64_t kBatch = 2;
constexpr double kTolerance = 1e-5;
const mt::ModelConfig kShape{256, 32, 4, 2, 16, 0.0};

// SGD with lr 1 moves each weight by exactly its gradient, so a wrongly scaled or partial
// all-reduce shows directly; AdamW is what training uses, but its first step is nearly
// scale-invariant and would hide a missing average.
enum class Optimizer { sgd, adamw };

std::unique_ptr<torch::optim::Optimizer> make_optimizer(mt::Gpt& model, Optimizer kind) {
  if (kind == Optimizer::sgd)
    return std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(1.0));
  return std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(1e-3));
}

mt::TokenBatch batch_of(int64_t micro, int rank) {
  return mt::synthetic_batch(kSeed, micro, rank, kBatch, kShape.seq_length, kShape.vocab_size);
}

// The strategy under test: this rank's samples only, gradients synchronised by DDP.
mt::Gpt ddp_step(mt::Communicator& comm, Optimizer kind, int accum, mt::SyncMode mode,
                 double bucket_cap_mb) {
  // Rank-dependent seed: the broadcast in prepare() must make the replicas equal.
  auto model = mt::make_gpt(kShape, kSeed + static_cast<uint64_t>(comm.rank()));
  mt::StrategyOptions options;
  options.comm = &comm;
  options.sync_mode = mode;
  options.bucket_cap_mb = bucket_cap_mb;
  auto strategy = mt::find_strategy("ddp")->make(options);
  strategy->prepare(*model);
  auto optimizer = make_optimizer(model, kind);
  for (int micro = 0; micro < accum; ++micro) {
    const auto batch = batch_of(micro, comm.rank());
    (model->loss(batch.inputs, batch.targets) / accum).backward();
    strategy->after_backward(micro, accum);
  }
  optimizer->step();
  const long expected_rounds = mode == mt::SyncMode::every ? accum : 1;
  if (strategy->sync_rounds() != expected_rounds) {
    std::fprintf(stderr, "rank %d: %ld sync rounds, expected %ld\n", comm.rank(),
                 strategy->sync_rounds(), expected_rounds);
    std::exit(1);
  }
  return model;
}

// The reference: one process, both ranks' samples concatenated into one batch.
mt::Gpt reference_step(Optimizer kind, int world_size, int accum) {
  auto model = mt::make_gpt(kShape, kSeed);  // rank 0's initial weights
  auto optimizer = make_optimizer(model, kind);
  for (int micro = 0; micro < accum; ++micro) {
    std::vector<torch::Tensor> inputs, targets;
    for (int r = 0; r < world_size; ++r) {
      auto batch = batch_of(micro, r);
      inputs.push_back(batch.inputs);
      targets.push_back(batch.targets);
    }
    (model->loss(torch::cat(inputs), torch::cat(targets)) / accum).backward();
  }
  optimizer->step();
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  int accum = 1;
  std::string mode_name = "last";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--grad-accum-steps") accum = std::atoi(argv[i + 1]);
    else if (flag == "--gradient-sync-mode") mode_name = argv[i + 1];
  }
  const auto mode = mode_name == "every" ? mt::SyncMode::every : mt::SyncMode::last;

  mt::MpiSession session;
  mt::MpiCommunicator comm;
  at::set_num_threads(1);
  bool all_match = true;
  for (const auto& [kind, name] : {std::pair{Optimizer::sgd, "sgd"}, std::pair{Optimizer::adamw, "adamw"}}) {
    // A small cap forces several buckets, so bucket packing and unpacking are exercised too.
    auto ddp = ddp_step(comm, kind, accum, mode, /*bucket_cap_mb=*/0.02);
    auto reference = reference_step(kind, comm.world_size(), accum);

    double max_diff = 0, max_update = 0;
    const auto a = ddp->parameters(), b = reference->parameters();
    const auto initial = mt::make_gpt(kShape, kSeed)->parameters();
    for (std::size_t i = 0; i < a.size(); ++i) {
      max_diff = std::max(max_diff, (a[i] - b[i]).abs().max().item<double>());
      max_update = std::max(max_update, (a[i] - initial[i]).abs().max().item<double>());
    }
    const double worst = comm.all_reduce_max(max_diff);
    // Guard against a vacuous pass: the step must actually have moved the weights.
    if (max_update < 1e-4) {
      std::fprintf(stderr, "rank %d: %s step barely changed the parameters (%.3g)\n", comm.rank(),
                   name, max_update);
      return 1;
    }
    if (comm.rank() == 0)
      std::printf("ddp oracle (%s): world %d, grad-accum %d, sync %s: max |ddp - reference| = %.3g "
                  "(tolerance %.0e)\n", name, comm.world_size(), accum, mode_name.c_str(), worst,
                  kTolerance);
    all_match = all_match && worst <= kTolerance;
  }
  return all_match ? 0 : 1;
}
