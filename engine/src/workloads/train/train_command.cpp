#include "workloads/train/train_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "core/env/environment.h"
#include "core/env/resources.h"
#include "workloads/train/result_json.h"
#include "training/trainer/trainer.h"
#include "core/job/workload.h"

namespace mt {
namespace {

void print_summary(const TrainConfig& c, int world_size, const RankRun& run, const TrainSummary& s) {
  if (!run.nothing_to_train.empty()) {  // no step ran: no figures to print
    fmt::print("mtengine train: {} x{} params={} resumed from step {}: nothing left to train\n", c.strategy, world_size,
               run.parameters, run.first_step);
    std::fflush(stdout);
    return;
  }
  fmt::print(
      "mtengine train: {} x{} params={} tokens/s={:.1f} step={:.2f} ms (data {:.2f}, fwd+bwd {:.2f}, "
      "opt {:.2f}) loss={:.4f} peak_rss={:.1f} MiB sync={}/{} rounds/step\n",
      c.strategy, world_size, run.parameters, s.tokens_per_sec, s.step_time_ms, s.data_time_ms, s.forward_backward_ms,
      s.optimizer_step_ms, s.loss, static_cast<double>(s.peak_rss_bytes) / (1024.0 * 1024.0),
      sync_mode_name(run.sync_mode), run.sync_rounds_per_step);
  std::fflush(stdout);
}

class TrainWorkload final : public Workload {
 public:
  explicit TrainWorkload(const TrainConfig& config) : config_(config) {
    run_.threads = config.threads > 0 ? config.threads : default_threads();
  }

  std::string name() const override { return "train"; }
  std::optional<std::string> validate() const override { return mt::validate(config_); }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    world_size_ = group.world_size();
    run_.sync_mode = resolved_sync_mode(config_);  // the strategy is known to exist by now
    train_on_this_rank(config_, group, run_);
    if (run_.non_finite) return non_finite_outcome(group);

    const TrainSummary summary = summarize(config_, run_, group.control);
    WorkloadOutcome outcome;
    if (group.rank() != 0) return outcome;
    print_summary(config_, world_size_, run_, summary);
    outcome.result =
        train_result_json(config_, world_size_, run_, summary, collect_environment(run_.threads, run_.gpu));
    return outcome;
  }

  nlohmann::json error_result(const RunError& error) const override {
    return error_result_json(config_, world_size_, error, collect_environment(run_.threads));
  }

  std::optional<int64_t> current_step() const override {
    if (run_.current_step < 0) return std::nullopt;  // failed while setting up
    return run_.current_step;
  }

 private:
  // Every rank stopped at the same step, before its optimizer step: a failure, not a crash.
  WorkloadOutcome non_finite_outcome(ProcessGroup& group) {
    const std::string reason =
        fmt::format("non-finite {} at step {} (first on rank {}); stopped before the optimizer step",
                    run_.non_finite_what, run_.current_step, run_.first_bad_rank);
    WorkloadOutcome outcome;
    outcome.exit_code = 1;
    if (group.rank() != 0) return outcome;
    std::fprintf(stderr, "mtengine train: %s; all ranks stopped\n", reason.c_str());
    outcome.result = error_result(RunError{run_.first_bad_rank, run_.current_step, reason, "all_rank_fail_fast"});
    return outcome;
  }

  TrainConfig config_;
  RankRun run_;
  int world_size_ = 1;
};

}  // namespace

int run_train_command(const TrainConfig& config) {
  TrainWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt
