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
  cmd.add_option("--precision", c.precision,
                 "fp32, or bf16 (bf16 compute, fp32 master weights and optimizer state)")
      ->capture_default_str();
  cmd.add_option("--grad-reduce-dtype", c.grad_reduce_dtype,
                 "element type gradients are reduced in: fp32 or bf16")
      ->capture_default_str();
  cmd.add_flag("--activation-checkpointing", c.activation_checkpointing,
               "recompute each block's activations in backward");
  cmd.add_flag("--backward-prefetch", c.backward_prefetch,
               "fsdp: gather the next unit's parameters while this one runs backward");
  cmd.add_option("--lr-scheduler", c.lr_scheduler, "constant or cosine")->capture_default_str();
  cmd.add_option("--lr-warmup-steps", c.lr_warmup_steps, "linear learning-rate warmup steps")
      ->capture_default_str();
  cmd.add_option("--lr-decay-steps", c.lr_decay_steps,
                 "cosine decay length after warmup (0: until the last step)")
      ->capture_default_str();
  cmd.add_option("--min-learning-rate", c.min_learning_rate, "cosine floor")->capture_default_str();
  cmd.add_option("--max-grad-norm", c.max_grad_norm,
                 "clip the global gradient norm to this (0: record only)")
      ->capture_default_str();
  cmd.add_option("--first-bucket-cap-mb", c.first_bucket_cap_mb,
                 "ddp: size of the first (earliest) gradient bucket, MiB")
      ->capture_default_str();
  cmd.add_option("--backend", c.backend, "communication backend")->capture_default_str();
  cmd.add_option("--bucket-cap-mb", c.bucket_cap_mb, "gradient all-reduce bucket size, MiB")
      ->capture_default_str();
  cmd.add_option("--threads", c.threads,
                 "intra-op threads per rank (default: OMP_NUM_THREADS, else cores / local ranks)");
  cmd.add_option("--output", c.output, "result JSON path (written by rank 0)");
}

}  // namespace mt
