#include "train/trainer.h"

#include <chrono>
#include <cmath>

#include "data/synthetic.h"
#include "env/resources.h"
#include "model/gpt.h"
#include "strategy/strategy.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int64_t optimizer_state_bytes(const torch::optim::Optimizer& optimizer) {
  int64_t total = 0;
  for (const auto& entry : optimizer.state()) {
    const auto* state = dynamic_cast<const torch::optim::AdamWParamState*>(entry.second.get());
    if (!state) continue;
    for (const auto& t : {state->exp_avg(), state->exp_avg_sq(), state->max_exp_avg_sq()})
      if (t.defined()) total += static_cast<int64_t>(t.nbytes());
  }
  return total;
}

CollectiveCounts per_step(const CollectiveCounts& before, const CollectiveCounts& after, long steps) {
  return CollectiveCounts{(after.all_reduce - before.all_reduce) / steps,
                          (after.all_gather - before.all_gather) / steps,
                          (after.reduce_scatter - before.reduce_scatter) / steps,
                          (after.broadcast - before.broadcast) / steps};
}

}  // namespace

void train_on_this_rank(const TrainConfig& config, Communicator& comm, RankRun& run) {
  at::set_num_threads(run.threads);
  set_blas_threads(run.threads);
  const int rank = comm.rank();
  const StrategyEntry& entry = *find_strategy(config.strategy);  // validated before

  Gpt model = make_gpt(config.model, config.seed);
  model->train();
  run.parameters = parameter_count(*model);

  StrategyOptions options;
  options.comm = &comm;
  options.sync_mode = run.sync_mode;
  options.bucket_cap_mb = config.bucket_cap_mb;
  auto strategy = entry.make(options);
  strategy->prepare(*model);
  // Dropout masks must differ between ranks, like any independent data-parallel worker.
  torch::manual_seed(config.seed + 7919ULL * static_cast<uint64_t>(rank + 1));

  torch::optim::AdamW optimizer(model->parameters(),
                                torch::optim::AdamWOptions(config.learning_rate));

  const int64_t total_steps = config.warmup_steps + config.steps;
  const int micro_count = static_cast<int>(config.grad_accum_steps);
  CollectiveCounts counts_at_measure_start;
  long rounds_at_measure_start = 0;

  for (int64_t step = 0; step < total_steps; ++step) {
    run.current_step = step;
    if (step == config.warmup_steps) {
      counts_at_measure_start = comm.counts();
      rounds_at_measure_start = strategy->sync_rounds();
    }
    comm.barrier();  // a step starts on all ranks together
    const auto step_start = Clock::now();
    double data_ms = 0, forward_backward_ms = 0, local_loss = 0;
    for (int micro = 0; micro < micro_count; ++micro) {
      const auto data_start = Clock::now();
      const TokenBatch batch =
          synthetic_batch(config.seed, step * micro_count + micro, rank, config.batch_size,
                          config.model.seq_length, config.model.vocab_size);
      data_ms += ms_since(data_start);

      const auto compute_start = Clock::now();
      auto loss = model->loss(batch.inputs, batch.targets);
      (loss / micro_count).backward();
      strategy->after_backward(micro, micro_count);
      local_loss += loss.item<double>() / micro_count;
      forward_backward_ms += ms_since(compute_start);
    }
    const auto optimizer_start = Clock::now();
    strategy->before_optimizer_step();
    optimizer.step();
    optimizer.zero_grad();
    strategy->after_optimizer_step();
    run.optimizer_ms.push_back(ms_since(optimizer_start));
    run.step_ms.push_back(ms_since(step_start));
    run.data_ms.push_back(data_ms);
    run.forward_backward_ms.push_back(forward_backward_ms);

    // Outside the timed region: the mean loss doubles as an all-rank health check, so every rank
    // sees a non-finite loss at the same step and stops there.
    const double mean_loss = comm.all_reduce_sum(local_loss) / comm.world_size();
    run.mean_loss.push_back(mean_loss);
    if (!std::isfinite(mean_loss)) {
      run.non_finite_loss = true;
      run.first_bad_rank = static_cast<int>(
          comm.all_reduce_min(std::isfinite(local_loss) ? comm.world_size() : rank));
      return;
    }
  }

  run.sync_rounds_per_step = (strategy->sync_rounds() - rounds_at_measure_start) / config.steps;
  run.collectives_per_step = per_step(counts_at_measure_start, comm.counts(), config.steps);
  const StrategyReport report = strategy->report();
  run.bucket_bytes = report.bucket_bytes;
  run.parameter_bytes = report.parameter_bytes;
  run.gradient_bytes = report.gradient_bytes;
  run.optimizer_state_bytes = optimizer_state_bytes(optimizer);
}

}  // namespace mt
