#include "training/checkpoint/layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "training/checkpoint/durable_file.h"

namespace mt::checkpoint_layout {

namespace fs = std::filesystem;

std::string step_name(int64_t step) { return fmt::format("step_{:08d}", step); }
fs::path step_dir(const fs::path& root, int64_t step) { return root / step_name(step); }
fs::path temp_dir(const fs::path& root, int64_t step) { return root / ("." + step_name(step) + ".tmp"); }
std::string shard_name(int rank) { return fmt::format("rank_{:05d}.shard", rank); }

std::optional<int64_t> parse_step_name(const std::string& name) {
  if (name.size() != 13 || name.rfind("step_", 0) != 0) return std::nullopt;
  if (!std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return std::stoll(name.substr(5));
}

bool is_ready(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kReady, ec);
}

std::vector<int64_t> ready_steps(const fs::path& root) {
  std::vector<int64_t> steps;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory(ec)) continue;
    if (auto step = parse_step_name(entry.path().filename().string()); step && is_ready(entry.path()))
      steps.push_back(*step);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::optional<int64_t> resolve_latest(const fs::path& root) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(root / kLatest, ec);
  if (!ec) {
    if (auto step = parse_step_name(target.filename().string()); step && is_ready(step_dir(root, *step)))
      return step;
  }
  const auto steps = ready_steps(root);
  if (steps.empty()) return std::nullopt;
  return steps.back();
}

void publish(const fs::path& root, int64_t step) {
  const fs::path final_dir = step_dir(root, step);
  std::error_code ec;
  fs::remove_all(final_dir, ec);  // an unpublished leftover of the same step (no READY)
  fs::rename(temp_dir(root, step), final_dir);
  fsync_path(root);
  const fs::path link = root / (std::string(kLatest) + ".tmp");
  fs::remove(link, ec);
  fs::create_directory_symlink(step_name(step), link);
  fs::rename(link, root / kLatest);  // atomic: readers see the old target or the new one
  fsync_path(root);
}

void prune(const fs::path& root, int64_t keep_last) {
  if (keep_last <= 0) return;
  const auto steps = ready_steps(root);
  const auto latest = resolve_latest(root);
  const auto excess = static_cast<int64_t>(steps.size()) - keep_last;
  for (int64_t i = 0; i < excess; ++i) {
    if (latest && steps[static_cast<std::size_t>(i)] == *latest) continue;
    // READY goes first, so a prune cut short leaves an unready directory, never a damaged one.
    const fs::path dir = step_dir(root, steps[static_cast<std::size_t>(i)]);
    fs::remove(dir / kReady);
    fsync_path(dir);
    fs::remove_all(dir);
  }
  fsync_path(root);
}

std::vector<fs::path> clean_incomplete(const fs::path& root) {
  std::vector<fs::path> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    const bool temporary = name.size() > 5 && name[0] == '.' && name.rfind(".tmp") == name.size() - 4 &&
                           parse_step_name(name.substr(1, name.size() - 5));
    const bool unready = entry.is_directory(ec) && parse_step_name(name) && !is_ready(entry.path());
    if (temporary || unready) removed.push_back(entry.path());
  }
  for (const auto& path : removed) fs::remove_all(path, ec);
  return removed;
}

}  // namespace mt::checkpoint_layout
