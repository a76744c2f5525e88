#include "training/checkpoint/save_directory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "training/checkpoint/layout.h"

namespace mt {

namespace fs = std::filesystem;
namespace layout = checkpoint_layout;

namespace {

// Whether `resumed` is the step ROOT/latest resolves to: what `--resume latest` continues.
bool resumes_latest(const fs::path& root, const ResumedStep& resumed) {
  const auto latest = layout::resolve_latest(root);
  std::error_code ec;
  return latest && *latest == resumed.step && fs::equivalent(layout::step_dir(root, *latest), resumed.dir, ec);
}

}  // namespace

std::string save_directory_problem(const fs::path& root, const CheckpointIdentity& run,
                                   const std::optional<ResumedStep>& resumed) {
  const auto steps = layout::ready_steps(root);
  std::vector<std::string> newer;  // steps of this run past the one resumed from, oldest first
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const fs::path dir = layout::step_dir(root, *it);
    std::string differs;
    try {
      const CheckpointMetadata metadata = read_metadata(dir);
      // Strategy and world size only lay the state out: a checkpoint of the same math is this run's.
      CheckpointIdentity same_layout = run;
      same_layout.strategy = metadata.identity.strategy;
      same_layout.world_size = metadata.identity.world_size;
      differs = identity_mismatch(metadata.identity, same_layout);
    } catch (const std::exception& e) {
      differs = e.what();
    }
    if (!differs.empty())
      return fmt::format(
          "--checkpoint-dir '{}' holds checkpoints of another run ({}: {}): saving this run there would overwrite "
          "them; choose another --checkpoint-dir, or resume that run with its own settings (--resume)",
          root.string(), layout::step_name(*it), differs);
    if (!resumed)
      return fmt::format(
          "--checkpoint-dir '{}' already holds {} of this configuration: a run from step 0 would overwrite its "
          "steps and move `latest` back; pass --resume latest to continue it, or choose another --checkpoint-dir",
          root.string(), layout::step_name(*it));
    if (*it > resumed->step) newer.insert(newer.begin(), layout::step_name(*it));
  }
  if (newer.empty() || resumes_latest(root, *resumed)) return "";
  return fmt::format(
      "--checkpoint-dir '{}' holds {} of this run, newer than step {} that this run resumes from ('{}'): saving "
      "there would overwrite {} and move `latest` back; to continue the run, resume from its newest step "
      "(--resume latest); to branch from step {}, choose another --checkpoint-dir",
      root.string(), fmt::join(newer, ", "), resumed->step, resumed->dir.string(), newer.size() == 1 ? "it" : "them",
      resumed->step);
}

std::string reshard_destination_problem(const fs::path& root, int64_t step, const fs::path& source_step) {
  std::error_code ec;
  const fs::path destination = fs::weakly_canonical(fs::absolute(root, ec), ec);
  const fs::path source = fs::weakly_canonical(fs::absolute(source_step, ec), ec);
  const auto [end, ignored] = std::mismatch(source.begin(), source.end(), destination.begin(), destination.end());
  if (end == source.end())
    return fmt::format("DST '{}' lies inside the source step '{}': the source is only read, never written into",
                       root.string(), source_step.string());
  if (const auto inside = layout::enclosing_step_dir(root))
    return fmt::format(
        "DST '{}' lies inside checkpoint step '{}': DST is a checkpoint directory (step_N/ is made in it)",
        root.string(), inside->string());
  const auto steps = layout::ready_steps(root);
  if (!steps.empty() && steps.back() >= step)
    return fmt::format("DST '{}' already holds {}{}: writing step {} there would {}; choose another directory",
                       root.string(), layout::step_name(steps.back()),
                       steps.back() == step ? "" : fmt::format(" (newer than step {})", step), step,
                       steps.back() == step ? "overwrite that published step" : "move `latest` back to an older step");
  return "";
}

}  // namespace mt
