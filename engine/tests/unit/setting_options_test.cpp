// Every setting a checkpoint's fingerprint covers is named by the train option that sets it.
#include "torch_doctest.h"

#include <set>
#include <string>

#include "training/checkpoint/metadata.h"
#include "training/optim/lr_schedule.h"
#include "training/trainer/checkpoint_state.h"
#include "training/trainer/config.h"
#include "training/trainer/setting_options.h"
#include "training/trainer/trainer.h"

namespace {

void leaf_paths(const nlohmann::json& node, const std::string& path, std::set<std::string>& out) {
  if (!node.is_object()) {
    out.insert(path);
    return;
  }
  for (const auto& [key, value] : node.items()) leaf_paths(value, path.empty() ? key : path + "." + key, out);
}

}  // namespace

TEST_CASE("each fingerprinted setting is named by the train option that sets it") {
  mt::TrainConfig config;
  std::set<std::string> settings, named;
  leaf_paths(mt::checkpoint_settings_json(config, mt::lr_schedule_of(config), "digest of --init-from"), "", settings);
  for (const auto& [path, option] : mt::fingerprinted_setting_options()) named.insert(path);
  CHECK(named == settings);
  const auto& options = mt::fingerprinted_setting_options();
  CHECK(options.at("model.d_model") == "--d-model");
  CHECK(options.at("lr_schedule.kind") == "--lr-scheduler");
  CHECK(options.at("lr_schedule.decay_steps") ==
        "--lr-decay-steps, by default --warmup-steps + --steps - --lr-warmup-steps");
  CHECK(options.at("initial_weights_sha256") == "--init-from");

  // A run's refusal of a checkpoint says which flag to change.
  mt::TrainConfig other = config;
  other.seed = 7;
  const auto checkpoint = mt::checkpoint_identity(config, 1, mt::lr_schedule_of(config));
  const auto run = mt::checkpoint_identity(other, 1, mt::lr_schedule_of(other));
  CHECK(mt::identity_mismatch(checkpoint, run).find("seed (--seed): checkpoint 1337, this run 7") != std::string::npos);
}
