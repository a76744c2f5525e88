#include "train/train_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "comm/mpi_communicator.h"
#include "env/environment.h"
#include "env/resources.h"
#include "train/result_json.h"
#include "train/trainer.h"

namespace mt {
namespace {

SyncMode resolve_sync_mode(const TrainConfig& c) {
  if (c.gradient_sync_mode == "every") return SyncMode::every;
  if (c.gradient_sync_mode == "last") return SyncMode::last;
  return find_strategy(c.strategy)->auto_sync_mode;
}

void print_summary(const TrainConfig& c, int world_size, const RankRun& run, const TrainSummary& s) {
  fmt::print("mtengine train: {} x{} params={} tokens/s={:.1f} step={:.2f} ms (data {:.2f}, fwd+bwd {:.2f}, "
             "opt {:.2f}) loss={:.4f} peak_rss={:.1f} MiB sync={}/{} rounds/step\n",
             c.strategy, world_size, run.parameters, s.tokens_per_sec, s.step_time_ms,
             s.data_time_ms, s.forward_backward_ms, s.optimizer_step_ms, s.loss,
             static_cast<double>(s.peak_rss_bytes) / (1024.0 * 1024.0),
             sync_mode_name(run.sync_mode), run.sync_rounds_per_step);
  std::fflush(stdout);
}

// Writes the error result if this rank is allowed to and there is somewhere to write it.
void try_write_error(const TrainConfig& c, int world_size, const RunError& error) {
  if (c.output.empty()) return;
  try {
    write_json_atomically(c.output, error_result_json(c, world_size, error, collect_environment()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mtengine train: %s\n", e.what());
  }
}

std::optional<int64_t> known_step(const RankRun& run) {
  if (run.current_step < 0) return std::nullopt;  // failed while setting up
  return run.current_step;
}

}  // namespace

int run_train_command(TrainConfig config) {
  // Every rank validates the same argv before MPI starts, so a bad flag stops all ranks with 2.
  if (auto problem = validate(config)) {
    std::fprintf(stderr, "mtengine train: %s\n", problem->c_str());
    return 2;
  }

  MpiSession session;
  MpiCommunicator comm;
  RankRun run;
  run.threads = config.threads > 0 ? config.threads : default_threads();
  run.sync_mode = resolve_sync_mode(config);

  try {
    train_on_this_rank(config, comm, run);
  } catch (const std::exception& e) {
    // Other ranks may be blocked in a collective with us: record what we know, then stop the job.
    const std::string reason = fmt::format("rank {} failed at step {}: {}", comm.rank(),
                                           run.current_step, e.what());
    try_write_error(config, comm.world_size(),
                    RunError{comm.rank(), known_step(run), e.what(), "all_rank_fail_fast"});
    if (comm.world_size() > 1) abort_job(reason, 1);
    std::fprintf(stderr, "mtengine train: %s\n", reason.c_str());
    return 1;
  }

  if (run.non_finite) {
    const std::string reason =
        fmt::format("non-finite {} at step {} (first on rank {}); stopped before the optimizer step",
                    run.non_finite_what, run.current_step, run.first_bad_rank);
    if (comm.rank() == 0) {
      std::fprintf(stderr, "mtengine train: %s; all ranks stopped\n", reason.c_str());
      try_write_error(config, comm.world_size(),
                      RunError{run.first_bad_rank, run.current_step, reason, "all_rank_fail_fast"});
    }
    return 1;
  }

  const TrainSummary summary = summarize(config, run, comm);
  if (comm.rank() != 0) return 0;
  print_summary(config, comm.world_size(), run, summary);
  if (!config.output.empty()) {
    try {
      write_json_atomically(config.output, train_result_json(config, comm.world_size(), run, summary,
                                                             collect_environment()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mtengine train: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}

}  // namespace mt
