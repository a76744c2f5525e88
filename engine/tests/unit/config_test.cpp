#include <doctest/doctest.h>

#include "train/config.h"

namespace {

std::string problem(const mt::TrainConfig& c) { return validate(c).value_or("ok"); }

}  // namespace

TEST_CASE("defaults are valid") { CHECK(problem(mt::TrainConfig{}) == "ok"); }

TEST_CASE("validation names the flag and value") {
  mt::TrainConfig c;
  c.model.n_heads = 7;
  CHECK(problem(c) == "--n-heads 7 does not divide --d-model 512");

  c = {};
  c.batch_size = 0;
  CHECK(problem(c) == "--batch-size 0 must be positive");

  c = {};
  c.steps = -3;
  CHECK(problem(c) == "--steps -3 must be positive");

  c = {};
  c.strategy = "fdsp";
  CHECK(problem(c) == "--strategy 'fdsp' is not available (available: ddp, fsdp, zero1, zero2)");

  c = {};
  c.gradient_sync_mode = "sometimes";
  CHECK(problem(c) == "--gradient-sync-mode 'sometimes' must be one of auto, every, last");

  c = {};
  c.precision = "fp16";
  CHECK(problem(c) == "--precision 'fp16' must be one of fp32, bf16");

  c = {};
  c.grad_reduce_dtype = "fp8";
  CHECK(problem(c) == "--grad-reduce-dtype 'fp8' must be one of fp32, bf16");

  c = {};
  c.lr_scheduler = "linear";
  CHECK(problem(c) == "--lr-scheduler 'linear' must be one of constant, cosine");

  c = {};
  c.max_grad_norm = -1;
  CHECK(problem(c) == "--max-grad-norm -1 must not be negative");

  c = {};
  c.min_learning_rate = 1.0;
  CHECK(problem(c) == "--min-learning-rate 1 must be in [0, --learning-rate 0.0003]");

  c = {};
  c.warmup_steps = -1;
  CHECK(problem(c) == "--warmup-steps -1 must not be negative");

  c = {};
  c.bucket_cap_mb = 0;
  CHECK(problem(c) == "--bucket-cap-mb 0 must be positive");
}

TEST_CASE("zero warmup steps is allowed") {
  mt::TrainConfig c;
  c.warmup_steps = 0;
  CHECK(problem(c) == "ok");
}

TEST_CASE("bf16 precision and every strategy are accepted") {
  for (const char* strategy : {"ddp", "fsdp", "zero1", "zero2"}) {
    mt::TrainConfig c;
    c.strategy = strategy;
    c.precision = "bf16";
    CHECK(problem(c) == "ok");
  }
}
