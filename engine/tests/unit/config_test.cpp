#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/cuda/cuda_device.h"
#include "training/strategy/strategy_table.h"
#include "training/trainer/config.h"
#include "training/trainer/train_options.h"

namespace {

std::string problem(const mt::TrainConfig& c) { return validate(c).value_or("ok"); }

const nlohmann::json* described(const nlohmann::json& description, const std::string& param) {
  for (const auto& option : description["options"])
    if (option["param"] == param) return &option;
  return nullptr;
}

}  // namespace

TEST_CASE("defaults are valid") { CHECK(problem(mt::TrainConfig{}) == "ok"); }

TEST_CASE("validation names the flag and value") {
  mt::TrainConfig c;
  c.model.n_heads = 7;
  CHECK(problem(c) == "--n-heads 7 does not divide --d-model 512");

  c = {};
  c.batch_size = 0;
  CHECK(problem(c) == "--batch-size 0 must be at least 1");

  c = {};
  c.steps = -3;
  CHECK(problem(c) == "--steps -3 must be at least 1");

  c = {};
  c.model.vocab_size = 1;
  CHECK(problem(c) == "--vocab-size 1 must be at least 2");

  c = {};
  c.model.vocab_size = 1000000000000;
  CHECK(problem(c) == "--vocab-size 1000000000000 must be at most 16777216");

  c = {};
  c.model.seq_length = 1000000000;
  CHECK(problem(c) == "--seq-length 1000000000 must be at most 1048576");

  c = {};
  c.strategy = "fdsp";
  CHECK(problem(c) == "--strategy 'fdsp' must be one of " + mt::available_strategies());

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
  CHECK(problem(c) == "--max-grad-norm -1 must be at least 0");

  c = {};
  c.min_learning_rate = 1.0;
  CHECK(problem(c) == "--min-learning-rate 1 must be at most --learning-rate 0.0003");

  c = {};
  c.learning_rate = 0;
  CHECK(problem(c) == "--learning-rate 0 must be greater than 0");

  c = {};
  c.learning_rate = std::nan("");
  CHECK(problem(c) == "--learning-rate nan must be a finite number");

  c = {};
  c.model.dropout = 1.0;
  CHECK(problem(c) == "--dropout 1 must be below 1");

  c = {};
  c.warmup_steps = -1;
  CHECK(problem(c) == "--warmup-steps -1 must be at least 0");

  c = {};
  c.bucket_cap_mb = -1;
  CHECK(problem(c) == "--bucket-cap-mb -1 must be at least 0");

  c = {};
  c.job.backend = "gloo";
  CHECK(problem(c) == "--backend 'gloo' must be one of mpi, nccl");

  c = {};
  c.job.collective_timeout_s = -1;
  CHECK(problem(c) == "--collective-timeout -1 must be at least 0");
}

TEST_CASE("the nccl backend is accepted exactly when this build has it") {
  mt::TrainConfig c;
  c.job.backend = "nccl";
  if (mt::built_with_nccl()) CHECK(problem(c) == "ok");
  else CHECK(problem(c) == "--backend nccl is not supported in this build (supported: mpi)");
}

TEST_CASE("zero warmup steps is allowed") {
  mt::TrainConfig c;
  c.warmup_steps = 0;
  CHECK(problem(c) == "ok");
}

TEST_CASE("bf16 precision and every strategy are accepted") {
  for (const auto& entry : mt::strategy_table()) {
    mt::TrainConfig c;
    c.strategy = entry.name;
    c.precision = "bf16";
    CHECK(problem(c) == "ok");
  }
}

TEST_CASE("the default bucket cap is 25 MiB, and for zero2 an eighth of the model within [1, 25]") {
  mt::TrainConfig c;
  constexpr int64_t kMiB = 1024 * 1024;
  CHECK(mt::resolved_bucket_cap_mb(c, 400 * kMiB) == 25.0);
  c.strategy = "zero2";
  CHECK(mt::resolved_bucket_cap_mb(c, 16 * kMiB) == 2.0);
  CHECK(mt::resolved_bucket_cap_mb(c, 2 * kMiB) == 1.0);
  CHECK(mt::resolved_bucket_cap_mb(c, 400 * kMiB) == 25.0);
  c.bucket_cap_mb = 7;
  CHECK(mt::resolved_bucket_cap_mb(c, 16 * kMiB) == 7.0);
}

TEST_CASE("the description carries every flag with its default, choices and bounds") {
  mt::TrainConfig c;
  const auto description = mt::describe_options(mt::train_option_table(c), "train");
  CHECK(description["subcommand"] == "train");

  const auto* vocab = described(description, "vocab_size");
  REQUIRE(vocab != nullptr);
  CHECK((*vocab)["flag"] == "--vocab-size");
  CHECK((*vocab)["type"] == "integer");
  CHECK((*vocab)["default"] == c.model.vocab_size);
  CHECK((*vocab)["minimum"] == 2);
  CHECK((*vocab)["maximum"] == 16777216);

  const auto* strategy = described(description, "strategy");
  REQUIRE(strategy != nullptr);
  auto names = nlohmann::json::array();
  for (const auto& entry : mt::strategy_table()) names.push_back(entry.name);
  CHECK((*strategy)["choices"] == names);
  CHECK(names.size() >= 4);  // ddp, fsdp, zero1, zero2 at least

  const auto* dropout = described(description, "dropout");
  REQUIRE(dropout != nullptr);
  CHECK((*dropout)["exclusive_maximum"] == true);

  const auto* output = described(description, "output");
  REQUIRE(output != nullptr);
  CHECK((*output)["experiment_param"] == false);

  CHECK(described(description, "activation_checkpointing")->at("type") == "boolean");
  CHECK(description["constraints"].size() == 2);
  CHECK(description["constraints"][0] == nlohmann::json({{"relation", "divides"}, {"a", "n_heads"}, {"b", "d_model"}}));
}
