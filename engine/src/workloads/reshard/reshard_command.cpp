#include "workloads/reshard/reshard_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/job/path_checks.h"
#include "core/job/workload.h"
#include "training/strategy/strategy_table.h"

namespace mt {
namespace {

class ReshardWorkload final : public Workload {
 public:
  explicit ReshardWorkload(const ReshardConfig& config) : config_(config) {}

  std::string name() const override { return "reshard"; }
  std::optional<std::string> validate() const override {
    if (!find_strategy(config_.request.strategy))
      return fmt::format("--strategy '{}' is not one of {}", config_.request.strategy, available_strategies());
    // As train takes it: finite, 0 (the strategy's default) up to 1 TiB; `nan` fails every comparison.
    if (!(config_.request.bucket_cap_mb >= 0 && config_.request.bucket_cap_mb <= 1048576))
      return fmt::format("--bucket-cap-mb {} must be a number from 0 to 1048576", config_.request.bucket_cap_mb);
    if (auto problem = output_directory_problem("DST", config_.request.destination)) return problem;
    return std::nullopt;
  }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    const ReshardReport report = reshard_on_this_rank(config_.request, group);
    WorkloadOutcome outcome;
    if (group.rank() != 0) return outcome;
    fmt::print("mtengine reshard: step {} of {} ({} x{}) written to {} as {} x{} ({} bytes)\n", report.step,
               config_.request.source, report.source_strategy, report.source_world_size, config_.request.destination,
               config_.request.strategy, group.world_size(), report.bytes);
    std::fflush(stdout);
    outcome.result =
        result_document("reshard", true,
                        {{"source", config_.request.source},
                         {"destination", config_.request.destination},
                         {"step", report.step},
                         {"from", {{"strategy", report.source_strategy}, {"world_size", report.source_world_size}}},
                         {"to", {{"strategy", config_.request.strategy}, {"world_size", group.world_size()}}},
                         {"bytes", report.bytes}});
    return outcome;
  }

  nlohmann::json error_result(const RunError& error) const override {
    return result_document(
        "reshard", false,
        {{"source", config_.request.source},
         {"destination", config_.request.destination},
         {"error", {{"reason", error.reason}, {"rank", error.rank ? nlohmann::json(*error.rank) : nlohmann::json()}}}});
  }

 private:
  ReshardConfig config_;
};

}  // namespace

int run_reshard_command(const ReshardConfig& config) {
  ReshardWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt
