#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/metadata.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;
namespace layout = mt::checkpoint_layout;

namespace {

fs::path scratch(const std::string& name) { return mt::testing::scratch_folder("mt_ckpt_layout", name); }

// The options a run names its settings by (training/trainer/setting_options.h gives train's).
const std::map<std::string, std::string> kOptions = {
    {"seed", "--seed"},
    {"model.d_model", "--d-model"},
    {"lr_schedule.kind", "--lr-scheduler"},
    {"lr_schedule.warmup_steps", "--lr-warmup-steps"},
    {"lr_schedule.decay_steps", "--lr-decay-steps, by default --warmup-steps + --steps - --lr-warmup-steps"},
    {"initial_weights_sha256", "--init-from"}};

void make_step(const fs::path& root, int64_t step, bool ready) {
  fs::create_directories(layout::step_dir(root, step));
  std::ofstream(layout::step_dir(root, step) / layout::shard_name(0)) << "x";
  if (ready) std::ofstream(layout::step_dir(root, step) / layout::kReady);
}

}  // namespace

TEST_CASE("step directories are named step_%08d and parsed back") {
  CHECK(layout::step_name(12) == "step_00000012");
  CHECK(layout::parse_step_name("step_00000012") == 12);
  CHECK_FALSE(layout::parse_step_name("step_12").has_value());
  CHECK_FALSE(layout::parse_step_name(".step_00000012.tmp").has_value());
  CHECK(layout::shard_name(3) == "rank_00003.shard");
}

TEST_CASE("only READY steps count, and latest falls back to the newest READY step") {
  const auto root = scratch("latest");
  CHECK_FALSE(layout::resolve_latest(root).has_value());
  make_step(root, 3, true);
  make_step(root, 6, true);
  make_step(root, 9, false);  // a crash before READY
  fs::create_directories(layout::temp_dir(root, 12));
  CHECK(layout::ready_steps(root) == std::vector<int64_t>{3, 6});
  CHECK(layout::resolve_latest(root) == 6);

  fs::create_directory_symlink("step_00000003", root / layout::kLatest);
  CHECK(layout::resolve_latest(root) == 3);  // latest names a READY step: it wins
  fs::remove(root / layout::kLatest);
  fs::create_directory_symlink("step_00000009", root / layout::kLatest);
  CHECK(layout::resolve_latest(root) == 6);  // names an unready one: the newest READY step

  fs::create_directories(layout::pruning_dir(root, 1));  // a prune cut short
  const auto leftovers = layout::clean_incomplete(root);
  CHECK(leftovers.removed.size() == 2);
  CHECK_FALSE(fs::exists(layout::temp_dir(root, 12)));
  CHECK_FALSE(fs::exists(layout::pruning_dir(root, 1)));
  // The unready step is kept aside with what it held, out of the steps a resume considers.
  REQUIRE(leftovers.set_aside.size() == 1);
  CHECK(leftovers.set_aside[0] == root / layout::kUnready / "step_00000009");
  CHECK_FALSE(fs::exists(layout::step_dir(root, 9)));
  CHECK(fs::exists(root / layout::kUnready / "step_00000009" / layout::shard_name(0)));
  CHECK(fs::exists(layout::step_dir(root, 6)));
  CHECK(layout::ready_steps(root) == std::vector<int64_t>{3, 6});
  // A second one of the same step does not overwrite the first.
  make_step(root, 9, false);
  CHECK(layout::clean_incomplete(root).set_aside[0] == root / layout::kUnready / "step_00000009.1");
  fs::remove_all(root);
}

TEST_CASE("publish renames into place and moves latest; prune keeps the newest K") {
  const auto root = scratch("publish");
  for (int64_t step : {2, 4, 6}) {
    fs::create_directories(layout::temp_dir(root, step));
    std::ofstream(layout::temp_dir(root, step) / layout::kReady);
    layout::publish(root, step);
    CHECK(fs::read_symlink(root / layout::kLatest) == fs::path(layout::step_name(step)));
    CHECK_FALSE(fs::exists(layout::temp_dir(root, step)));
  }
  layout::prune(root, 2);
  CHECK(layout::ready_steps(root) == std::vector<int64_t>{4, 6});
  CHECK(layout::resolve_latest(root) == 6);
  fs::remove_all(root);
}

TEST_CASE("an identity mismatch names the field and both values") {
  const mt::CheckpointIdentity saved{"fsdp", 2, "fp32", "aaaa", {}};
  CHECK(mt::identity_mismatch(saved, saved).empty());
  CHECK(mt::identity_mismatch(saved, {"ddp", 2, "fp32", "aaaa", {}}) ==
        "strategy: checkpoint has 'fsdp', this run 'ddp'");
  CHECK(mt::identity_mismatch(saved, {"fsdp", 4, "fp32", "aaaa", {}}) == "world_size: checkpoint has 2, this run 4");
  CHECK(mt::identity_mismatch(saved, {"fsdp", 2, "bf16", "aaaa", {}}) ==
        "precision: checkpoint has 'fp32', this run 'bf16'");
  CHECK(mt::identity_mismatch(saved, {"fsdp", 2, "fp32", "bbbb", {}})
            .rfind("config_fingerprint: checkpoint has aaaa, this run bbbb", 0) == 0);
}

TEST_CASE("a fingerprint mismatch names each setting that differs, with both values") {
  const nlohmann::json settings = {{"model", {{"d_model", 32}, {"n_layers", 1}}},
                                   {"seed", 1},
                                   {"lr_schedule", {{"kind", "cosine"}, {"decay_steps", 4}}}};
  nlohmann::json other = settings;
  other["seed"] = 7;
  other["lr_schedule"]["decay_steps"] = 6;
  const mt::CheckpointIdentity saved{"fsdp", 2, "fp32", "aaaa", settings};
  const std::string message = mt::identity_mismatch(saved, {"fsdp", 2, "fp32", "bbbb", other, kOptions});
  CHECK(message.rfind("config_fingerprint: checkpoint has aaaa, this run bbbb: ", 0) == 0);
  CHECK(message.find("seed (--seed): checkpoint 1, this run 7") != std::string::npos);
  CHECK(message.find("lr_schedule.decay_steps (--lr-decay-steps, by default --warmup-steps + --steps - "
                     "--lr-warmup-steps): checkpoint 4, this run 6") != std::string::npos);
  CHECK(message.find("d_model") == std::string::npos);  // only what differs
  CHECK(message.find("; ") != std::string::npos);
  // A setting only one side records, and a nested one.
  other = settings;
  other["model"]["d_model"] = 64;
  other["initial_weights_sha256"] = "abc";
  const std::string nested = mt::identity_mismatch(saved, {"fsdp", 2, "fp32", "bbbb", other, kOptions});
  CHECK(nested.find("model.d_model (--d-model): checkpoint 32, this run 64") != std::string::npos);
  CHECK(nested.find("initial_weights_sha256 (--init-from): checkpoint (absent), this run \"abc\"") !=
        std::string::npos);
  // A checkpoint that does not record its settings: the digests alone, and what kind of setting differs.
  const std::string unrecorded =
      mt::identity_mismatch({"fsdp", 2, "fp32", "aaaa", {}}, {"fsdp", 2, "fp32", "bbbb", other});
  CHECK(unrecorded.find("a setting that changes the training math differs") != std::string::npos);
}

TEST_CASE("a constant learning rate makes no run differ by the decay length or floor it never reads") {
  // As a constant-rate run of 4 steps recorded them (metadata.json of mtengine bb132bb, which also
  // recorded decay_steps): the digest stays what it was, and a longer run still matches it.
  const auto saved_settings = nlohmann::json::parse(R"({"batch_size": 2, "grad_accum_steps": 1,
      "grad_reduce_dtype": "fp32", "gradient_sync_mode": "auto", "keep_denormals": false, "learning_rate": 0.0003,
      "lr_schedule": {"decay_steps": 4, "kind": "constant", "min_learning_rate": 0.0, "warmup_steps": 0},
      "max_grad_norm": 0.0, "model": {"d_model": 32, "dropout": 0.0, "n_heads": 2, "n_layers": 1, "seq_length": 16,
      "vocab_size": 128}, "seed": 1337})");
  const std::string saved_fingerprint = "fff121c7a62511b7faf9ccd11175c6fe8de1e0ee10c2e0d1e6c9178e8c4c88e8";
  CHECK(mt::fingerprint_of(saved_settings) == saved_fingerprint);
  const mt::CheckpointIdentity saved{"ddp", 1, "fp32", saved_fingerprint, saved_settings};
  auto run_with = [](nlohmann::json settings) {
    return mt::CheckpointIdentity{"ddp", 1, "fp32", mt::fingerprint_of(settings), settings, kOptions};
  };
  nlohmann::json longer = saved_settings;  // --steps 6: the decay would run 6 steps
  longer["lr_schedule"]["decay_steps"] = 6;
  longer["lr_schedule"]["min_learning_rate"] = 1e-5;
  CHECK(mt::identity_mismatch(saved, run_with(longer)).empty());
  CHECK(mt::identity_mismatch(run_with(longer), saved).empty());
  // The same math at another layout reshards.
  CHECK(mt::differs_only_in_layout(saved, {"fsdp", 2, "fp32", run_with(longer).fingerprint, longer}));

  // What the constant schedule reads still counts.
  nlohmann::json warmer = longer;
  warmer["lr_schedule"]["warmup_steps"] = 2;
  CHECK(mt::identity_mismatch(saved, run_with(warmer))
            .find("lr_schedule.warmup_steps (--lr-warmup-steps): "
                  "checkpoint 0, this run 2") != std::string::npos);
  CHECK(mt::identity_mismatch(saved, run_with(warmer)).find("decay_steps") == std::string::npos);
  // A cosine schedule reads the decay length; a run switching schedules differs in its kind.
  nlohmann::json cosine = saved_settings, cosine_longer;
  cosine["lr_schedule"]["kind"] = "cosine";
  cosine_longer = cosine;
  cosine_longer["lr_schedule"]["decay_steps"] = 6;
  CHECK(mt::identity_mismatch(run_with(cosine), run_with(cosine_longer)).find("lr_schedule.decay_steps") !=
        std::string::npos);
  CHECK(mt::identity_mismatch(saved, run_with(cosine))
            .find("lr_schedule.kind (--lr-scheduler): checkpoint "
                  "\"constant\", this run \"cosine\"") != std::string::npos);
  // Settings edited apart from their digest are not taken at their word.
  CHECK_FALSE(mt::identity_mismatch({"ddp", 1, "fp32", "aaaa", saved_settings}, run_with(longer)).empty());
}

TEST_CASE("metadata round-trips, and a newer format is refused clearly") {
  const auto root = scratch("metadata");
  mt::CheckpointMetadata m;
  m.identity = {"zero2", 2, "bf16", "f00d", {}};
  m.global_step = 12;
  m.tokens_seen = 12288;
  m.created_at = "2026-12-01T00:00:00Z";
  m.files = {{"rank_00000.shard", 10, "ab"}, {"rank_00001.shard", 11, "cd"}};
  std::ofstream(root / layout::kMetadata) << to_json(m).dump();
  const auto back = mt::read_metadata(root);
  CHECK(back.identity.strategy == "zero2");
  CHECK(back.global_step == 12);
  CHECK(back.files.size() == 2);
  CHECK(back.files[1].bytes == 11);
  CHECK(back.gemm_backends.is_null());  // not recorded: none
  m.gemm_backends = nlohmann::json::array({{{"shape", "512×768×256 (A·Bᵀ)"}, {"backend", "onednn"}}});
  std::ofstream(root / layout::kMetadata) << to_json(m).dump();
  CHECK(mt::read_metadata(root).gemm_backends == m.gemm_backends);

  auto newer = to_json(m);
  newer["format_version"] = mt::kCheckpointFormatVersion + 1;
  std::ofstream(root / layout::kMetadata) << newer.dump();
  CHECK_THROWS_WITH(
      mt::read_metadata(root),
      doctest::Contains("has checkpoint format version 2; this mtengine reads up to 1: use a newer mtengine"));
  fs::remove_all(root);
}

TEST_CASE("metadata fields are checked against each other and the directory, not just parsed") {
  const auto parent = scratch("fields");
  const auto root = parent / "step_00000012";
  fs::create_directories(root);
  mt::CheckpointMetadata m;
  m.identity = {"ddp", 2, "fp32", "f00d", {}};
  m.global_step = 12;
  m.tokens_seen = 12288;
  m.created_at = "2026-12-01T00:00:00Z";
  m.files = {{"rank_00000.shard", 10, "ab"}, {"rank_00001.shard", 11, "cd"}};
  const auto path = (root / layout::kMetadata).string();
  auto refused = [&](const std::string& key, const nlohmann::json& value) {
    auto doc = to_json(m);
    doc[key] = value;
    std::ofstream(root / layout::kMetadata) << doc.dump();
    try {
      mt::read_metadata(root);
    } catch (const mt::CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("format_version", -5) ==
        "'" + path + "' is damaged: format_version -5 is not a whole number in [1, 1073741824]");
  CHECK(refused("format_version", 1.9) ==
        "'" + path + "' is damaged: format_version 1.9 is not a whole number in [1, 1073741824]");
  CHECK(refused("world_size", 1e30) ==
        "'" + path + "' is damaged: world_size 1e+30 is not a whole number in [1, 16777216]");
  CHECK(refused("world_size", 1) == "'" + path + "' is damaged: it lists 2 shard(s) for world_size 1");
  CHECK(refused("global_step", 6) == "'" + path + "' is damaged: global_step 6 in a directory of step 12");
  CHECK(refused("files", nlohmann::json::array({{{"name", "rank_00001.shard"}, {"bytes", 1}, {"sha256", "x"}},
                                                {{"name", "rank_00000.shard"}, {"bytes", 1}, {"sha256", "y"}}})) ==
        "'" + path + "' is damaged: shard 0 is 'rank_00001.shard', expected 'rank_00000.shard'");
  CHECK(refused("global_step", 12) == "accepted");
  fs::remove_all(parent);
}
