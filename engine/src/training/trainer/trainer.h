// The training loop of one rank. Torch-free interface: callers see plain measurements.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/process_group.h"
#include "training/model/gemm_tally.h"
#include "training/strategy/strategy_table.h"
#include "training/trainer/config.h"

namespace mt {

// What one rank measured. Series cover every step, warmup included.
struct RankRun {
  int threads = 1;
  bool flush_denormal_all_threads = false;  // FTZ and DAZ set in this thread and the whole pool
  SyncMode sync_mode = SyncMode::last;
  int64_t parameters = 0;
  double bucket_cap_mb = 0;  // as resolved for this strategy and model
  std::vector<double> step_ms, data_ms, forward_backward_ms, optimizer_ms;
  std::vector<double> rank_wait_ms;  // waiting at the step's start for the other ranks
  std::vector<double> mean_loss;     // mean over ranks; identical on every rank
  std::vector<double> grad_norm;     // global norm before clipping; identical on every rank
  std::vector<double> learning_rate;
  // The dense layers' GEMMs within each step (gemm_backend.h's tally; zero where they do not run
  // through it: bf16 autocast, GPUs).
  std::vector<double> gemm_ms, gemm_flops;
  // The same per shape of the GEMM choice table (gemm_choices()' order), per measured step, this
  // rank's.
  std::vector<GemmTally> gemm_by_shape;

  // Per measured optimizer step (warmup excluded), from the counters.
  long sync_rounds_per_step = 0;
  CollectiveCounts collectives_per_step;

  std::vector<int64_t> bucket_bytes;
  int64_t parameter_bytes = 0, gradient_bytes = 0, optimizer_state_bytes = 0;
  int64_t peak_full_parameter_bytes = 0, peak_gradient_bytes = 0, gathered_parameter_bytes = 0;
  bool gpu = false;       // trained on this rank's GPU
  std::string bf16_gemm;  // bf16 runs: "native" (autocast) or "emulated" (fp32 GEMMs, bf16 operands)
  int64_t device_max_allocated_bytes = 0, device_max_reserved_bytes = 0;  // GPU memory peaks

  double allreduce_8_bytes_us = 0;  // multi-rank calibration: median 8-byte all-reduce, slowest rank

  // Checkpoints: the step this process started at (a resume point, else 0), saves and the load.
  int64_t first_step = 0;
  std::optional<int64_t> resumed_from_step;
  std::string initial_weights_path, initial_weights_sha256;  // --init-from, when given
  struct Layout {
    std::string strategy;
    int world_size = 0;
  };
  std::optional<Layout> resharded_from;  // the resumed checkpoint's, when it differs from this run's
  bool resume_deterministic = false;
  double checkpoint_load_ms = 0;
  // A resume at or past the run's last step trains nothing: why, in words; empty when steps ran.
  // Such a run measured no throughput, step time or loss, and its result carries none.
  std::string nothing_to_train;
  struct CheckpointSave {
    int64_t step;
    double ms;  // what training waited for
    uint64_t bytes;
    bool async = false;
    double background_ms = 0;  // async: this rank's background write
    double total_ms = 0;       // async: copy to publication
  };
  std::vector<bool> step_during_save;  // per step: an async save was being written meanwhile
  std::vector<CheckpointSave> checkpoint_saves;
  std::string profile_json;  // rank 0 of a profiled run: the summary (profile/profiler.h)

  // Progress and the all-rank stop, before the optimizer step, on a non-finite loss or gradient.
  int64_t current_step = -1;
  bool non_finite = false;
  std::string non_finite_what;  // "loss" or "gradient"
  int first_bad_rank = -1;
};

class Strategy;

// The configured strategy (options taken from the flags), not yet prepared, for a model of
// `parameter_bytes` (which sizes the default gradient buckets).
std::unique_ptr<Strategy> make_strategy(const TrainConfig& config, Communicator& comm, SyncMode sync_mode,
                                        int64_t parameter_bytes);

// What --gradient-sync-mode means for the configured strategy ("auto": the strategy's own choice).
SyncMode resolved_sync_mode(const TrainConfig& config);

// The learning-rate schedule of a run: cosine decay over the steps after warmup unless given.
struct LrSchedule;
LrSchedule lr_schedule_of(const TrainConfig& config);

// Runs warmup + measured steps. Collective: every rank must call it. Throws on failure; on a
// non-finite loss or gradient every rank stops at the same step, before its optimizer step, and
// returns with non_finite set.
void train_on_this_rank(const TrainConfig& config, ProcessGroup& group, RankRun& run);

}  // namespace mt
