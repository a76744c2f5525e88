#include "training/checkpoint/layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "training/checkpoint/durable_file.h"

namespace mt::checkpoint_layout {

namespace fs = std::filesystem;

std::string step_name(int64_t step) { return fmt::format("step_{:08d}", step); }
fs::path step_dir(const fs::path& root, int64_t step) { return root / step_name(step); }
fs::path temp_dir(const fs::path& root, int64_t step) { return root / fmt::format(".{}.tmp", step_name(step)); }
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

std::optional<fs::path> enclosing_step_dir(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return std::nullopt;
  for (fs::path dir = absolute; !dir.empty(); dir = dir.parent_path()) {
    if (parse_step_name(dir.filename().string()) && (fs::exists(dir / kReady, ec) || fs::exists(dir / kMetadata, ec)))
      return dir;
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
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
    if (auto step = parse_step_name(target.filename().string()); step && is_ready(step_dir(root, *step))) return step;
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
    // READY goes first, then the name: a prune cut short leaves an unready or a hidden pruned
    // directory, never a damaged step.
    const int64_t step = steps[static_cast<std::size_t>(i)];
    const fs::path dir = step_dir(root, step);
    fs::remove(dir / kReady);
    fsync_path(dir);
    fs::rename(dir, pruning_dir(root, step));
    fs::remove_all(pruning_dir(root, step));
  }
  fsync_path(root);
}

namespace {

// ".step_00000012.tmp" -> 12 for SUFFIX ".tmp".
bool is_hidden_step(const std::string& name, const std::string& suffix) {
  if (name.size() <= 1 + suffix.size() || name[0] != '.') return false;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return parse_step_name(name.substr(1, name.size() - 1 - suffix.size())).has_value();
}

// ROOT/unready/step_00000012, or step_00000012.1, .2, … when an earlier one is there.
fs::path free_unready_name(const fs::path& root, const std::string& name) {
  fs::path target = root / kUnready / name;
  std::error_code ec;
  for (int n = 1; fs::exists(target, ec); ++n) target = root / kUnready / fmt::format("{}.{}", name, n);
  return target;
}

}  // namespace

fs::path pruning_dir(const fs::path& root, int64_t step) { return root / fmt::format(".{}.pruning", step_name(step)); }

Leftovers clean_incomplete(const fs::path& root) {
  Leftovers out;
  std::error_code ec;
  std::vector<fs::path> unready;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (is_hidden_step(name, ".tmp") || is_hidden_step(name, ".pruning")) out.removed.push_back(entry.path());
    else if (entry.is_directory(ec) && parse_step_name(name) && !is_ready(entry.path()))
      unready.push_back(entry.path());
  }
  for (const auto& path : out.removed) fs::remove_all(path, ec);
  // A step without READY is never resumed from, but it may hold everything else (READY lost in a
  // copy, removed by hand): moved aside, not deleted.
  if (!unready.empty()) fs::create_directories(root / kUnready);
  for (const auto& path : unready) {
    const fs::path target = free_unready_name(root, path.filename().string());
    fs::rename(path, target);
    out.set_aside.push_back(target);
  }
  if (!out.removed.empty() || !out.set_aside.empty()) fsync_path(root);
  return out;
}

}  // namespace mt::checkpoint_layout
