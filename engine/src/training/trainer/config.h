// Everything `mtengine train` is told, as plain data, and its validation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/job_options.h"
#include "training/model/model_config.h"
#include "training/strategy/strategy_table.h"

namespace mt {

struct TrainConfig {
  ModelConfig model;
  int64_t batch_size = 2;  // per rank, per micro-batch
  int64_t steps = 20;      // measured steps
  int64_t warmup_steps = 5;
  double learning_rate = 3e-4;
  uint64_t seed = 1337;
  std::string strategy = reference_strategy();
  int64_t grad_accum_steps = 1;
  std::string gradient_sync_mode = "auto";
  std::string precision = "fp32";
  std::string gemm_backend = "auto";  // auto | mkl | onednn: the dense layers' fp32 GEMMs (gemm_backend.h)
  double bucket_cap_mb = 0.0;         // 0: chosen by strategy (resolved_bucket_cap_mb)
  double first_bucket_cap_mb = 1.0;
  std::string grad_reduce_dtype = "fp32";  // fp32 | bf16
  bool activation_checkpointing = false;
  bool backward_prefetch = false;         // FSDP
  std::string lr_scheduler = "constant";  // constant | cosine
  int64_t lr_warmup_steps = 0;
  int64_t lr_decay_steps = 0;  // 0: all steps after the learning-rate warmup
  double min_learning_rate = 0.0;
  double max_grad_norm = 0.0;   // 0: measure the norm, never clip
  int threads = 0;              // 0: pick from the environment (see default_threads)
  bool keep_denormals = false;  // false: flush subnormal floats to zero (FTZ/DAZ)
  JobOptions job;               // --backend, --collective-timeout, --output
  // Checkpoints (see checkpoint/checkpointer.h) and injected faults (train/faults.h).
  std::string checkpoint_dir;
  int64_t save_every = 0;
  int64_t keep_last = 0;
  std::string resume;
  bool async_save = false;  // write checkpoints in the background while training continues
  std::vector<std::string> faults;
  std::string profile_dir;    // non-empty: a profiled run (traces and the step analysis here)
  std::string init_from;      // non-empty: starting weights from this safetensors file
  std::string weights_out;    // non-empty: the weights this run starts from written here
  std::string gradients_out;  // non-empty: the first step's averaged gradients written here
  std::string progress_file;  // non-empty: rank 0 keeps the steps completed here (progress_file.h)
};

// The first problem found, as a message naming the flag and value (without the
// "mtengine train: " prefix), or nothing when the configuration is usable: the option table's
// bounds, choices and relations, then what this build supports.
std::optional<std::string> validate(const TrainConfig& config);

// The gradient bucket cap a strategy uses, MiB: --bucket-cap-mb, or when that is 0 the strategy's
// default for a model of `parameter_bytes`.
double resolved_bucket_cap_mb(const TrainConfig& config, int64_t parameter_bytes);

}  // namespace mt
