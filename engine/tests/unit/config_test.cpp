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
  c.strategy = "fsdp";
  CHECK(problem(c) == "--strategy 'fsdp' is not available (available: ddp)");

  c = {};
  c.gradient_sync_mode = "sometimes";
  CHECK(problem(c) == "--gradient-sync-mode 'sometimes' must be one of auto, every, last");

  c = {};
  c.precision = "bf16";
  CHECK(problem(c) == "--precision bf16 is not supported yet (supported: fp32)");

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
