#include "train/config.h"

#include <fmt/format.h>

#include <cmath>

#include "strategy/strategy_table.h"

namespace mt {
namespace {

std::optional<std::string> require_positive(const char* flag, int64_t value) {
  if (value > 0) return std::nullopt;
  return fmt::format("{} {} must be positive", flag, value);
}

}  // namespace

std::optional<std::string> validate(const TrainConfig& c) {
  const std::pair<const char*, int64_t> positive[] = {
      {"--vocab-size", c.model.vocab_size}, {"--d-model", c.model.d_model},
      {"--n-heads", c.model.n_heads},       {"--n-layers", c.model.n_layers},
      {"--seq-length", c.model.seq_length}, {"--batch-size", c.batch_size},
      {"--steps", c.steps},                 {"--grad-accum-steps", c.grad_accum_steps}};
  for (const auto& [flag, value] : positive)
    if (auto error = require_positive(flag, value)) return error;
  if (c.model.d_model % c.model.n_heads != 0)
    return fmt::format("--n-heads {} does not divide --d-model {}", c.model.n_heads, c.model.d_model);
  if (c.warmup_steps < 0) return fmt::format("--warmup-steps {} must not be negative", c.warmup_steps);
  if (!(c.model.dropout >= 0.0 && c.model.dropout < 1.0))
    return fmt::format("--dropout {} must be in [0, 1)", c.model.dropout);
  if (!(std::isfinite(c.learning_rate) && c.learning_rate > 0.0))
    return fmt::format("--learning-rate {} must be positive", c.learning_rate);
  if (!(std::isfinite(c.bucket_cap_mb) && c.bucket_cap_mb > 0.0))
    return fmt::format("--bucket-cap-mb {} must be positive", c.bucket_cap_mb);
  if (c.threads < 0) return fmt::format("--threads {} must not be negative", c.threads);

  if (!find_strategy(c.strategy))
    return fmt::format("--strategy '{}' is not available (available: {})", c.strategy,
                       available_strategies());
  if (c.gradient_sync_mode != "auto" && c.gradient_sync_mode != "every" &&
      c.gradient_sync_mode != "last")
    return fmt::format("--gradient-sync-mode '{}' must be one of auto, every, last",
                       c.gradient_sync_mode);
  if (c.precision == "bf16") return std::string("--precision bf16 is not supported yet (supported: fp32)");
  if (c.precision != "fp32")
    return fmt::format("--precision '{}' must be one of fp32, bf16", c.precision);
  if (c.backend == "nccl") return std::string("--backend nccl is not supported in this build (supported: mpi)");
  if (c.backend != "mpi") return fmt::format("--backend '{}' must be one of mpi, nccl", c.backend);
  return std::nullopt;
}

}  // namespace mt
