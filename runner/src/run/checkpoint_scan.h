#pragma once
// What a checkpoint directory holds after a stage: which steps are published (step_%08d/ with
// READY) and which one `latest` names. Read-only; nothing in the directory is trusted beyond names.
#include <filesystem>
#include <optional>
#include <vector>

namespace mt {

struct CheckpointScan {
  bool exists = false;
  std::vector<int> ready_steps;    // ascending
  std::optional<int> latest_step;  // the step `latest` links to, when it links to one
};

CheckpointScan scan_checkpoints(const std::filesystem::path& dir);

}  // namespace mt
