// Where a checkpoint directory keeps what, and the moves that make a save atomic:
//   ROOT/step_00000012/            a published step: one shard file per rank, metadata.json, READY
//   ROOT/.step_00000012.tmp/       a step being written (never resumed from; cleaned up)
//   ROOT/latest -> step_00000012   replaced atomically (a new symlink renamed over the old one)
//   ROOT/.step_00000003.pruning/   a step being pruned (cleaned up)
//   ROOT/unready/step_00000009/    a step directory found without READY, set aside by a resume
// Only directories holding READY count; a `latest` naming anything else falls back to the newest
// READY step. Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mt {

namespace checkpoint_layout {

std::string step_name(int64_t step);  // "step_00000012"
std::filesystem::path step_dir(const std::filesystem::path& root, int64_t step);
std::filesystem::path temp_dir(const std::filesystem::path& root, int64_t step);
std::filesystem::path pruning_dir(const std::filesystem::path& root, int64_t step);
std::string shard_name(int rank);  // "rank_00001.shard"
inline constexpr const char* kMetadata = "metadata.json";
inline constexpr const char* kReady = "READY";
inline constexpr const char* kLatest = "latest";
inline constexpr const char* kUnready = "unready";

// The step a directory name stands for ("step_00000012" -> 12), or nothing.
std::optional<int64_t> parse_step_name(const std::string& name);
bool is_ready(const std::filesystem::path& dir);

// The checkpoint step directory `path` lies in (a step_N directory holding READY or metadata.json,
// symlinks resolved), or nothing: what a run reads from, never a place to write to.
std::optional<std::filesystem::path> enclosing_step_dir(const std::filesystem::path& path);

// Published steps (with READY), oldest first.
std::vector<int64_t> ready_steps(const std::filesystem::path& root);
// What `--resume latest` means: the step `latest` names if it is READY, else the newest READY step.
std::optional<int64_t> resolve_latest(const std::filesystem::path& root);

// Publishing, rank 0 only, after every rank's files are in the temporary directory: rename it
// into place, fsync the parent, point `latest` at it.
void publish(const std::filesystem::path& root, int64_t step);
// Removes published steps beyond the newest `keep_last` (never the one `latest` names).
void prune(const std::filesystem::path& root, int64_t keep_last);
// What a crash left behind: temporary and half-pruned directories are removed; step directories
// without READY are moved into ROOT/unready/ (never resumed from, never deleted: they may hold
// everything but READY).
struct Leftovers {
  std::vector<std::filesystem::path> removed;
  std::vector<std::filesystem::path> set_aside;  // where they are now
};
Leftovers clean_incomplete(const std::filesystem::path& root);

}  // namespace checkpoint_layout

}  // namespace mt
