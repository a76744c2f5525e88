#include "run/checkpoint_scan.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mt {
namespace {

// 6 for "step_00000006"; nothing for any other name.
std::optional<int> step_of(const std::string& name) {
  const std::string prefix = "step_";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 || name.size() > prefix.size() + 9) {
    return std::nullopt;
  }
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) return std::nullopt;
  return std::stoi(digits);
}

}  // namespace

CheckpointScan scan_checkpoints(const std::filesystem::path& dir) {
  CheckpointScan scan;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return scan;
  scan.exists = true;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    auto step = step_of(entry.path().filename().string());
    if (step && entry.is_directory(ec) && std::filesystem::is_regular_file(entry.path() / "READY", ec)) {
      scan.ready_steps.push_back(*step);
    }
  }
  std::sort(scan.ready_steps.begin(), scan.ready_steps.end());
  const auto latest = dir / "latest";
  if (std::filesystem::is_symlink(latest, ec)) {
    scan.latest_step = step_of(std::filesystem::read_symlink(latest, ec).filename().string());
  }
  return scan;
}

}  // namespace mt
