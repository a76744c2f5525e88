#include "train/train_cli.h"

namespace mt {

void add_train_options(CLI::App& cmd, TrainConfig& c) {
  // Values are checked by validate(), which names the flag and value in one consistent style.
  cmd.add_option("--vocab-size", c.model.vocab_size, "vocabulary size")->capture_default_str();
  cmd.add_option("--d-model", c.model.d_model, "model width")->capture_default_str();
  cmd.add_option("--n-heads", c.model.n_heads, "attention heads")->capture_default_str();
  cmd.add_option("--n-layers", c.model.n_layers, "transformer blocks")->capture_default_str();
  cmd.add_option("--seq-length", c.model.seq_length, "tokens per sequence")->capture_default_str();
  cmd.add_option("--dropout", c.model.dropout, "dropout probability")->capture_default_str();
  cmd.add_option("--batch-size", c.batch_size, "sequences per rank per micro-batch")
      ->capture_default_str();
  cmd.add_option("--steps", c.steps, "measured optimizer steps")->capture_default_str();
  cmd.add_option("--warmup-steps", c.warmup_steps, "untimed steps before measuring")
      ->capture_default_str();
  cmd.add_option("--learning-rate", c.learning_rate, "AdamW learning rate")->capture_default_str();
  cmd.add_option("--seed", c.seed, "model and data seed")->capture_default_str();
  cmd.add_option("--strategy", c.strategy, "parallel strategy")->capture_default_str();
  cmd.add_option("--grad-accum-steps", c.grad_accum_steps, "micro-batches per optimizer step")
      ->capture_default_str();
  cmd.add_option("--gradient-sync-mode", c.gradient_sync_mode, "auto, every or last")
      ->capture_default_str();
  cmd.add_option("--precision", c.precision, "fp32 (bf16 later)")->capture_default_str();
  cmd.add_option("--backend", c.backend, "communication backend")->capture_default_str();
  cmd.add_option("--bucket-cap-mb", c.bucket_cap_mb, "gradient all-reduce bucket size, MiB")
      ->capture_default_str();
  cmd.add_option("--threads", c.threads,
                 "intra-op threads per rank (default: OMP_NUM_THREADS, else cores / local ranks)");
  cmd.add_option("--output", c.output, "result JSON path (written by rank 0)");
}

}  // namespace mt
