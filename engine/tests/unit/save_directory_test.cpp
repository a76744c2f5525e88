#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "training/checkpoint/layout.h"
#include "training/checkpoint/metadata.h"
#include "training/checkpoint/save_directory.h"
#include "scratch_folder.h"

namespace fs = std::filesystem;
namespace layout = mt::checkpoint_layout;

namespace {

fs::path scratch(const std::string& name) { return mt::testing::scratch_folder("mt_save_directory", name); }

mt::CheckpointIdentity identity(const std::string& fingerprint, const std::string& strategy = "ddp") {
  return {strategy, 1, "fp32", fingerprint, {}};
}

// A published step with a readable metadata.json (its shard is not needed by these checks).
void publish_step(const fs::path& root, int64_t step, const mt::CheckpointIdentity& who) {
  const fs::path dir = layout::step_dir(root, step);
  fs::create_directories(dir);
  mt::CheckpointMetadata metadata;
  metadata.identity = who;
  metadata.global_step = step;
  metadata.files = {{layout::shard_name(0), 1, "00"}};
  std::ofstream(dir / layout::kMetadata) << mt::to_json(metadata).dump();
  std::ofstream(dir / layout::kReady);
}

// A run resumed from step `step` of the checkpoint directory `root`.
std::optional<mt::ResumedStep> from(const fs::path& root, int64_t step) {
  return mt::ResumedStep{layout::step_dir(root, step), step};
}

void point_latest_at(const fs::path& root, int64_t step) {
  fs::remove(root / layout::kLatest);
  fs::create_directory_symlink(layout::step_name(step), root / layout::kLatest);
}

}  // namespace

TEST_CASE("a run may save into an empty or missing directory") {
  const auto root = scratch("empty");
  CHECK(mt::save_directory_problem(root, identity("aa"), std::nullopt).empty());
  CHECK(mt::save_directory_problem(root / "missing", identity("aa"), std::nullopt).empty());
  fs::remove_all(root);
}

TEST_CASE("a fresh run refuses a directory holding another run's published steps, naming step and field") {
  const auto root = scratch("foreign");
  publish_step(root, 2, identity("aaaa"));
  publish_step(root, 4, identity("bbbb"));
  const auto problem = mt::save_directory_problem(root, identity("cccc"), std::nullopt);
  CHECK(problem.find("--checkpoint-dir '" + root.string() +
                     "' holds checkpoints of another run (step_00000004: "
                     "config_fingerprint: checkpoint has bbbb, this run cccc") == 0);
  CHECK(problem.find("choose another --checkpoint-dir") != std::string::npos);
  // Resumed from elsewhere, a run still must not mix its steps with another run's.
  CHECK_FALSE(mt::save_directory_problem(root, identity("cccc"), from(root / "elsewhere", 4)).empty());
  fs::remove_all(root);
}

TEST_CASE("a fresh run of the same configuration is told to resume; a resumed one saves on") {
  const auto root = scratch("same");
  publish_step(root, 2, identity("aaaa", "fsdp"));  // another layout of the same math is the same run
  const auto problem = mt::save_directory_problem(root, identity("aaaa"), std::nullopt);
  CHECK(problem.find("already holds step_00000002 of this configuration") != std::string::npos);
  CHECK(problem.find("pass --resume latest") != std::string::npos);
  CHECK(mt::save_directory_problem(root, identity("aaaa"), from(root, 2)).empty());
  // A step without READY was never published: nothing to protect.
  fs::create_directories(layout::step_dir(root / "unpublished", 6));
  CHECK(mt::save_directory_problem(root / "unpublished", identity("zz"), std::nullopt).empty());
  fs::remove_all(root);
}

TEST_CASE("a run resumed from an older step refuses a directory holding newer steps of its own run") {
  const auto root = scratch("newer");
  for (int64_t step : {2, 4, 6}) publish_step(root, step, identity("aaaa"));
  point_latest_at(root, 6);
  const auto problem = mt::save_directory_problem(root, identity("aaaa"), from(root, 2));
  CHECK(problem.find("--checkpoint-dir '" + root.string() +
                     "' holds step_00000004, step_00000006 of this run, newer than step 2 that this run resumes "
                     "from ('" +
                     layout::step_dir(root, 2).string() + "')") == 0);
  CHECK(problem.find("move `latest` back") != std::string::npos);
  CHECK(problem.find("resume from its newest step (--resume latest)") != std::string::npos);
  CHECK(problem.find("to branch from step 2, choose another --checkpoint-dir") != std::string::npos);
  // From a copy of the older step elsewhere, the same steps would be overwritten.
  CHECK(mt::save_directory_problem(root, identity("aaaa"), from(root / "copy", 4)).find("holds step_00000006 of") !=
        std::string::npos);
  // The newest step continues; so does a branch into a directory of its own.
  CHECK(mt::save_directory_problem(root, identity("aaaa"), from(root, 6)).empty());
  CHECK(mt::save_directory_problem(root / "branch", identity("aaaa"), from(root, 2)).empty());
  // `latest` behind a newer READY step: a save cut short before `latest` moved. Continuing from
  // `latest` recomputes that step; any older step is still refused.
  point_latest_at(root, 4);
  CHECK(mt::save_directory_problem(root, identity("aaaa"), from(root, 4)).empty());
  CHECK_FALSE(mt::save_directory_problem(root, identity("aaaa"), from(root, 2)).empty());
  fs::remove_all(root);
}

TEST_CASE("reshard refuses a destination holding that step or a newer one, or inside a step") {
  const auto root = scratch("reshard");
  publish_step(root / "src", 4, identity("aaaa"));
  const fs::path source = layout::step_dir(root / "src", 4);
  CHECK(mt::reshard_destination_problem(root / "dst", 4, source).empty());
  CHECK(mt::reshard_destination_problem(root / "src", 4, source).find("already holds step_00000004") !=
        std::string::npos);
  publish_step(root / "src", 6, identity("aaaa"));
  CHECK(mt::reshard_destination_problem(root / "src", 4, source).find("move `latest` back") != std::string::npos);
  CHECK(mt::reshard_destination_problem(source, 4, source).find("lies inside the source step") != std::string::npos);
  CHECK(mt::reshard_destination_problem(source / "sub", 4, source).find("lies inside the source step") !=
        std::string::npos);
  CHECK(mt::reshard_destination_problem(layout::step_dir(root / "src", 6), 4, source).find("inside checkpoint step") !=
        std::string::npos);
  CHECK(layout::enclosing_step_dir(source / "rank_00000.shard") == fs::weakly_canonical(source));
  CHECK_FALSE(layout::enclosing_step_dir(root / "src"));
  fs::remove_all(root);
}
