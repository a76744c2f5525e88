#include "training/trainer/metrics.h"

#include <algorithm>
#include <numeric>

#include "core/env/resources.h"

namespace mt {

double mean_from(const std::vector<double>& series, std::size_t first) {
  if (first >= series.size()) return 0.0;
  const double sum = std::accumulate(series.begin() + static_cast<long>(first), series.end(), 0.0);
  return sum / static_cast<double>(series.size() - first);
}

double tokens_per_second(const TrainConfig& c, int world_size, double step_time_ms) {
  if (step_time_ms <= 0) return 0.0;
  const double tokens = static_cast<double>(c.batch_size) * c.model.seq_length * c.grad_accum_steps * world_size;
  return tokens / (step_time_ms / 1000.0);
}

TrainSummary summarize(const TrainConfig& config, const RankRun& run, ControlChannel& control) {
  // The series hold the steps this process ran: from a resume point on, warmup counted from step 0.
  const auto first = static_cast<std::size_t>(std::max<int64_t>(0, config.warmup_steps - run.first_step));
  auto max_over_ranks = [&](double local) { return control.max(local); };
  auto max_bytes = [&](int64_t local) { return static_cast<int64_t>(control.max(static_cast<double>(local))); };

  TrainSummary s;
  s.step_time_ms = max_over_ranks(mean_from(run.step_ms, first));
  s.data_time_ms = max_over_ranks(mean_from(run.data_ms, first));
  s.forward_backward_ms = max_over_ranks(mean_from(run.forward_backward_ms, first));
  s.optimizer_step_ms = max_over_ranks(mean_from(run.optimizer_ms, first));
  s.rank_wait_ms = max_over_ranks(mean_from(run.rank_wait_ms, first));
  s.rank_wait_ms_per_rank = control.gather_to_root(run.rank_wait_ms);
  s.gemm_ms = max_over_ranks(mean_from(run.gemm_ms, first));
  s.gemm_flops = max_over_ranks(mean_from(run.gemm_flops, first));
  s.tokens_per_sec = tokens_per_second(config, control.world_size(), s.step_time_ms);
  s.loss = run.mean_loss.empty() ? 0.0 : run.mean_loss.back();
  s.peak_rss_bytes = max_bytes(peak_rss_bytes());
  s.parameter_bytes = max_bytes(run.parameter_bytes);
  s.gradient_bytes = max_bytes(run.gradient_bytes);
  s.optimizer_state_bytes = max_bytes(run.optimizer_state_bytes);
  s.peak_full_parameter_bytes = max_bytes(run.peak_full_parameter_bytes);
  s.gathered_parameter_bytes = max_bytes(run.gathered_parameter_bytes);
  s.peak_gradient_bytes = max_bytes(run.peak_gradient_bytes);
  s.device_max_allocated_bytes = max_bytes(run.device_max_allocated_bytes);
  s.device_max_reserved_bytes = max_bytes(run.device_max_reserved_bytes);
  s.step_ms_per_rank = control.gather_to_root(run.step_ms);
  s.hosts = control.hostnames();
  return s;
}

}  // namespace mt
