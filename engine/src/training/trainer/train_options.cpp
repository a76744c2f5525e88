#include "training/trainer/train_options.h"

#include "training/strategy/strategy_table.h"

namespace mt {
namespace {

// Bounds past which the engine cannot run a configuration on any machine (int32 kernel indices,
// embedding tables beyond memory), so the runner can reject them before a campaign starts.
constexpr double kMaxVocab = 16777216;    // 2^24 tokens
constexpr double kMaxWidth = 65536;       // d_model, heads
constexpr double kMaxSequence = 1048576;  // tokens per sequence, sequences per batch
constexpr double kMaxSteps = 1e9;
constexpr double kMaxBucketMb = 1048576;  // 1 TiB

Option integer(std::string flag, int64_t& target, std::string help, double minimum,
               std::optional<double> maximum = std::nullopt) {
  Option o{std::move(flag), OptionType::integer, std::move(help), &target};
  o.minimum = minimum;
  o.maximum = maximum;
  return o;
}

Option positive_number(std::string flag, double& target, std::string help,
                       std::optional<double> maximum = std::nullopt) {
  Option o{std::move(flag), OptionType::number, std::move(help), &target};
  o.minimum = 0;
  o.exclusive_minimum = true;
  o.maximum = maximum;
  return o;
}

Option non_negative_number(std::string flag, double& target, std::string help) {
  Option o{std::move(flag), OptionType::number, std::move(help), &target};
  o.minimum = 0;
  return o;
}

Option choice(std::string flag, std::string& target, std::string help, std::vector<std::string> choices) {
  Option o{std::move(flag), OptionType::choice, std::move(help), &target};
  o.choices = std::move(choices);
  return o;
}

Option flag(std::string name, bool& target, std::string help) {
  return Option{std::move(name), OptionType::boolean, std::move(help), &target};
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& entry : strategy_table()) names.push_back(entry.name);
  return names;
}

}  // namespace

OptionTable train_option_table(TrainConfig& c) {
  OptionTable t;
  auto& o = t.options;
  o.push_back(integer("vocab-size", c.model.vocab_size, "vocabulary size", 2, kMaxVocab));
  o.push_back(integer("d-model", c.model.d_model, "model width", 1, kMaxWidth));
  o.push_back(integer("n-heads", c.model.n_heads, "attention heads", 1, kMaxWidth));
  o.push_back(integer("n-layers", c.model.n_layers, "transformer blocks", 1, 4096));
  o.push_back(integer("seq-length", c.model.seq_length, "tokens per sequence", 1, kMaxSequence));
  {
    Option dropout{"dropout", OptionType::number, "dropout probability", &c.model.dropout};
    dropout.minimum = 0;
    dropout.maximum = 1;
    dropout.exclusive_maximum = true;
    o.push_back(dropout);
  }
  o.push_back(integer("batch-size", c.batch_size, "sequences per rank per micro-batch", 1, kMaxSequence));
  o.push_back(integer("steps", c.steps, "measured optimizer steps", 1, kMaxSteps));
  o.push_back(integer("warmup-steps", c.warmup_steps, "untimed steps before measuring", 0, kMaxSteps));
  o.push_back(positive_number("learning-rate", c.learning_rate, "AdamW learning rate"));
  o.push_back(Option{"seed", OptionType::integer, "model and data seed", &c.seed});
  o.back().minimum = 0;
  o.push_back(choice("strategy", c.strategy, "parallel strategy", strategy_names()));
  o.push_back(integer("grad-accum-steps", c.grad_accum_steps, "micro-batches per optimizer step", 1, 65536));
  o.push_back(choice("gradient-sync-mode", c.gradient_sync_mode,
                     "when gradients are synchronised under accumulation (auto: last for ddp/zero1, "
                     "every for fsdp/zero2)",
                     {"auto", "every", "last"}));
  o.push_back(choice("precision", c.precision, "fp32, or bf16 (bf16 compute, fp32 master weights and optimizer state)",
                     {"fp32", "bf16"}));
  o.push_back(choice("gemm-backend", c.gemm_backend,
                     "library for the dense layers' fp32 GEMMs (auto: the faster per shape, measured on this "
                     "machine once and kept)",
                     {"auto", "mkl", "onednn"}));
  o.push_back(
      choice("grad-reduce-dtype", c.grad_reduce_dtype, "element type gradients are reduced in", {"fp32", "bf16"}));
  o.push_back(
      flag("activation-checkpointing", c.activation_checkpointing, "recompute each block's activations in backward"));
  o.push_back(flag("backward-prefetch", c.backward_prefetch,
                   "fsdp: gather the next unit's parameters while this one runs backward"));
  o.push_back(choice("lr-scheduler", c.lr_scheduler, "learning-rate schedule", {"constant", "cosine"}));
  o.push_back(integer("lr-warmup-steps", c.lr_warmup_steps, "linear learning-rate warmup steps", 0, kMaxSteps));
  o.push_back(integer("lr-decay-steps", c.lr_decay_steps, "cosine decay length after warmup (0: until the last step)",
                      0, kMaxSteps));
  o.push_back(non_negative_number("min-learning-rate", c.min_learning_rate, "cosine floor"));
  o.push_back(
      non_negative_number("max-grad-norm", c.max_grad_norm, "clip the global gradient norm to this (0: record only)"));
  {
    Option cap{"bucket-cap-mb", OptionType::number,
               "gradient bucket size, MiB (0: by strategy: 25 for ddp and zero1; for zero2, an "
               "eighth of the model within [1, 25], so one bucket's full gradients stay small)",
               &c.bucket_cap_mb};
    cap.minimum = 0;
    cap.maximum = kMaxBucketMb;
    o.push_back(cap);
  }
  o.push_back(positive_number("first-bucket-cap-mb", c.first_bucket_cap_mb,
                              "ddp: size of the first (earliest) gradient bucket, MiB", kMaxBucketMb));
  o.push_back(choice("backend", c.job.backend, "communication backend", {"mpi", "nccl"}));
  {
    Option threads{"threads", OptionType::integer,
                   "intra-op threads per rank (0: OMP_NUM_THREADS, else cores / local ranks)", &c.threads};
    threads.minimum = 0;
    threads.maximum = 4096;
    o.push_back(threads);
  }
  {
    Option timeout{"collective-timeout", OptionType::number,
                   "seconds a collective may wait for its peers before the whole job is aborted "
                   "with the rank, operation and sequence number (0: wait forever)",
                   &c.job.collective_timeout_s};
    timeout.minimum = 0;
    o.push_back(timeout);
  }
  o.push_back(flag("keep-denormals", c.keep_denormals,
                   "compute with subnormal floats instead of flushing them to zero (slow on many "
                   "CPUs; the default flushes)"));
  o.push_back(Option{"checkpoint-dir", OptionType::text,
                     "directory of checkpoints: step_%08d/ per saved step, latest -> the newest", &c.checkpoint_dir});
  o.push_back(integer("save-every", c.save_every, "save a checkpoint every N steps (0: never)", 0, kMaxSteps));
  o.push_back(integer("keep-last", c.keep_last, "published checkpoints kept (0: all)", 0, kMaxSteps));
  o.push_back(flag("async-save", c.async_save,
                   "write checkpoints in the background: training waits only for a host copy of each "
                   "rank's state; publication stays atomic once every rank's write finished"));
  o.push_back(Option{"resume", OptionType::text,
                     "latest (the newest published checkpoint in --checkpoint-dir; none: start fresh) or a "
                     "step directory; warmup and measured steps still count from step 0",
                     &c.resume});
  {
    Option faults{"fault", OptionType::text,
                  "inject a fault, e.g. kill:rank=1,step=6 (kinds: kill, exit, nan, sleep, save-kill); "
                  "repeatable",
                  &c.faults};
    faults.experiment_param = false;
    o.push_back(faults);
  }
  o.push_back(Option{"profile", OptionType::text,
                     "profile into this directory: a Chrome trace per rank, the step breakdown and exposed "
                     "communication (a separate mode: timings carry the profiler's overhead)",
                     &c.profile_dir});
  o.push_back(Option{"init-from", OptionType::text,
                     "start from these weights (safetensors, nanoGPT names, as `mtengine export` writes them) "
                     "instead of the seed's initialisation; AdamW moments from `export --with-optimizer` are not "
                     "used (the optimizer starts fresh)",
                     &c.init_from});
  {
    Option weights{"weights-out", OptionType::text,
                   "write the weights this run starts from (the seed's initialisation, --init-from, or the "
                   "resumed checkpoint) here as safetensors, nanoGPT names",
                   &c.weights_out};
    weights.experiment_param = false;
    o.push_back(weights);
  }
  {
    Option gradients{"gradients-out", OptionType::text,
                     "write the first step's gradients (averaged over ranks, before clipping) here as "
                     "safetensors, nanoGPT names, the step's loss in the metadata",
                     &c.gradients_out};
    gradients.experiment_param = false;
    o.push_back(gradients);
  }
  o.push_back(Option{"progress-file", OptionType::text,
                     "rank 0 appends the number of steps completed and the time to this file at the start and "
                     "after every step, so a supervisor that restarts a dead job can count the work and time "
                     "the restart cost",
                     &c.progress_file});
  {
    Option output{"output", OptionType::text, "result JSON path (written by rank 0)", &c.job.output};
    output.experiment_param = false;
    o.push_back(output);
  }
  t.constraints = {{"n-heads", "d-model", Relation::divides},
                   {"min-learning-rate", "learning-rate", Relation::at_most}};
  return t;
}

}  // namespace mt
