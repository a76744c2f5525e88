// Cross-rank aggregation of one run's measurements (docs/measurement.md): a distributed step takes as
// long as its slowest rank, so times are the MAX over ranks of each rank's mean; loss is the mean
// over ranks; memory is the MAX.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/control_channel.h"
#include "training/trainer/config.h"
#include "training/trainer/trainer.h"

namespace mt {

struct TrainSummary {
  double step_time_ms = 0, data_time_ms = 0, forward_backward_ms = 0, optimizer_step_ms = 0;
  double rank_wait_ms = 0;  // max over ranks of the mean wait for the slowest rank
  // The dense layers' GEMMs per step: time, max over ranks of the mean; FLOPs, the most any rank ran.
  double gemm_ms = 0, gemm_flops = 0;
  double tokens_per_sec = 0;
  double loss = 0;  // final step, mean over ranks
  int64_t peak_rss_bytes = 0;
  int64_t parameter_bytes = 0, gradient_bytes = 0, optimizer_state_bytes = 0;
  int64_t peak_full_parameter_bytes = 0, peak_gradient_bytes = 0, gathered_parameter_bytes = 0;
  int64_t device_max_allocated_bytes = 0, device_max_reserved_bytes = 0;  // GPU; max over ranks
  std::vector<std::vector<double>> step_ms_per_rank;                      // [rank][step], rank 0 only
  std::vector<std::vector<double>> rank_wait_ms_per_rank;                 // likewise
  std::vector<std::string> hosts;
};

// Mean of series[first, end). Empty range gives 0.
double mean_from(const std::vector<double>& series, std::size_t first);

// batch × seq × grad_accum × world_size tokens per step_time_ms.
double tokens_per_second(const TrainConfig& config, int world_size, double step_time_ms);

// Collective: every rank calls it with its own run.
TrainSummary summarize(const TrainConfig& config, const RankRun& run, ControlChannel& control);

}  // namespace mt
