#include "training/trainer/config.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/comm/backends.h"
#include "core/job/path_checks.h"
#include "training/faults/faults.h"
#include "training/trainer/output_paths.h"
#include "training/trainer/train_options.h"

namespace mt {

std::optional<std::string> validate(const TrainConfig& config) {
  TrainConfig copy = config;  // the table binds to a mutable config; reading is all it does here
  if (auto problem = check_options(train_option_table(copy))) return problem;
  const int64_t total_steps = config.warmup_steps + config.steps;
  for (const auto& spec : config.faults) {
    Fault fault{};
    try {
      fault = parse_fault(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    // A fault that cannot fire would let a test of recovery pass without anything to recover from.
    if (fault.kind == FaultKind::save_kill) {
      if (config.save_every <= 0 || config.checkpoint_dir.empty())
        return fmt::format(
            "--fault {} can never fire: this run saves no checkpoint (needs --checkpoint-dir and "
            "--save-every)",
            spec);
      if (fault.step < 1 || fault.step > total_steps || fault.step % config.save_every != 0)
        return fmt::format("--fault {} can never fire: step {} is not a save step (every {} steps up to step {})", spec,
                           fault.step, config.save_every, total_steps);
    } else if (fault.step >= total_steps) {
      return fmt::format(
          "--fault {} can never fire: the run's last step is {} (warmup and measured steps count from 0)", spec,
          total_steps - 1);
    }
  }
  if (config.save_every > 0 && config.checkpoint_dir.empty()) return std::string("--save-every needs --checkpoint-dir");
  if (config.resume == "latest" && config.checkpoint_dir.empty())
    return std::string("--resume latest needs --checkpoint-dir");
  if (!config.checkpoint_dir.empty() && config.save_every > 0)
    if (auto problem = output_directory_problem("--checkpoint-dir", config.checkpoint_dir)) return problem;
  if (!config.profile_dir.empty())
    if (auto problem = output_directory_problem("--profile", config.profile_dir)) return problem;
  if (auto problem = train_output_problem(config)) return problem;
  for (const auto& entry : backend_table())
    if (config.job.backend == entry.name && !entry.available)
      return fmt::format("--backend {} is not supported in this build (supported: {})", config.job.backend,
                         available_backends());
  return std::nullopt;
}

double resolved_bucket_cap_mb(const TrainConfig& config, int64_t parameter_bytes) {
  if (config.bucket_cap_mb > 0) return config.bucket_cap_mb;
  constexpr double kDefaultMb = 25.0;  // PyTorch DDP's default
  if (config.strategy != "zero2") return kDefaultMb;
  // ZeRO-2 holds one bucket's full gradients at a time: eight buckets keep that to an eighth of
  // the model while each reduce-scatter stays large enough to run near bandwidth.
  const double model_mb = static_cast<double>(parameter_bytes) / (1024.0 * 1024.0);
  return std::clamp(model_mb / 8.0, 1.0, kDefaultMb);
}

}  // namespace mt
