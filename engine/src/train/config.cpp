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
  if (!(std::isfinite(c.first_bucket_cap_mb) && c.first_bucket_cap_mb > 0.0))
    return fmt::format("--first-bucket-cap-mb {} must be positive", c.first_bucket_cap_mb);
  if (c.grad_reduce_dtype != "fp32" && c.grad_reduce_dtype != "bf16")
    return fmt::format("--grad-reduce-dtype '{}' must be one of fp32, bf16", c.grad_reduce_dtype);
  if (c.lr_scheduler != "constant" && c.lr_scheduler != "cosine")
    return fmt::format("--lr-scheduler '{}' must be one of constant, cosine", c.lr_scheduler);
  if (c.lr_warmup_steps < 0)
    return fmt::format("--lr-warmup-steps {} must not be negative", c.lr_warmup_steps);
  if (c.lr_decay_steps < 0)
    return fmt::format("--lr-decay-steps {} must not be negative", c.lr_decay_steps);
  if (!(std::isfinite(c.min_learning_rate) && c.min_learning_rate >= 0.0 &&
        c.min_learning_rate <= c.learning_rate))
    return fmt::format("--min-learning-rate {} must be in [0, --learning-rate {}]",
                       c.min_learning_rate, c.learning_rate);
  if (!(std::isfinite(c.max_grad_norm) && c.max_grad_norm >= 0.0))
    return fmt::format("--max-grad-norm {} must not be negative", c.max_grad_norm);
  if (c.threads < 0) return fmt::format("--threads {} must not be negative", c.threads);

  if (!find_strategy(c.strategy))
    return fmt::format("--strategy '{}' is not available (available: {})", c.strategy,
                       available_strategies());
  if (c.gradient_sync_mode != "auto" && c.gradient_sync_mode != "every" &&
      c.gradient_sync_mode != "last")
    return fmt::format("--gradient-sync-mode '{}' must be one of auto, every, last",
                       c.gradient_sync_mode);
  if (c.precision != "fp32" && c.precision != "bf16")
    return fmt::format("--precision '{}' must be one of fp32, bf16", c.precision);
  if (c.backend == "nccl") return std::string("--backend nccl is not supported in this build (supported: mpi)");
  if (c.backend != "mpi") return fmt::format("--backend '{}' must be one of mpi, nccl", c.backend);
  return std::nullopt;
}

}  // namespace mt
