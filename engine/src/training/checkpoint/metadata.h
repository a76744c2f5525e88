// A checkpoint step's metadata.json: what it is (format version, strategy, world size, precision,
// configuration fingerprint, global step, tokens seen, creation time), every file it holds with
// its size and SHA-256, and (from checkpoints written by newer versions on) the settings the
// fingerprint covers, where each parameter lives in the shards and the GEMM backend of each
// shape. Resuming refuses a step whose identity differs from the run's, naming the field and both
// values. Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <optional>

#include "training/checkpoint/tensor_layout.h"

namespace mt {

constexpr int kCheckpointFormatVersion = 1;

// What must agree between a checkpoint and the run that resumes from it.
struct CheckpointIdentity {
  std::string strategy;
  int world_size = 1;
  std::string precision;
  std::string fingerprint;  // SHA-256 of the canonical JSON of the settings that change the math
  // The settings the fingerprint is taken over, where known (null in checkpoints that predate
  // them): a fingerprint mismatch names each setting that differs. Not itself compared.
  nlohmann::json settings;
  // A run's only, for messages (neither stored nor compared): the option that sets each setting,
  // by its path in `settings` ("seed" -> "--seed").
  std::map<std::string, std::string> setting_options = {};
};

struct CheckpointFile {
  std::string name;
  uint64_t bytes = 0;
  std::string sha256;
};

struct CheckpointMetadata {
  int format_version = kCheckpointFormatVersion;
  CheckpointIdentity identity;
  int64_t global_step = 0;  // optimizer steps completed
  int64_t tokens_seen = 0;
  std::string created_at;  // UTC, ISO 8601
  std::vector<CheckpointFile> files;
  // Optional: absent from checkpoints written before they were recorded.
  nlohmann::json settings;  // the settings the fingerprint is taken over (model shape, batch, ...)
  std::optional<CheckpointLayout> layout;
  // Per dense-layer shape, the GEMM backend the state was computed with, which a resume takes
  // again (training/trainer/gemm_setup.h); null where none was chosen.
  nlohmann::json gemm_backends;
};

nlohmann::json to_json(const CheckpointMetadata& metadata);
// Throws CheckpointError: unreadable, damaged, or newer than this binary understands.
CheckpointMetadata read_metadata(const std::filesystem::path& step_dir);

// The first difference between a checkpoint and the resuming run, as "strategy: checkpoint has
// 'fsdp', this run 'ddp'", or "" when they agree. A fingerprint mismatch names every setting that
// differs with both values, where both sides record their settings; settings that both sides'
// learning-rate schedules ignore (a constant schedule's decay length and floor) never differ.
std::string identity_mismatch(const CheckpointIdentity& checkpoint, const CheckpointIdentity& run);

// Whether a checkpoint differs from the run only in how the state is laid out (strategy, world
// size): the same math (fingerprint, or settings as identity_mismatch compares them) and precision,
// so it can be resharded on load.
bool differs_only_in_layout(const CheckpointIdentity& checkpoint, const CheckpointIdentity& run);

// SHA-256 over the canonical JSON (sorted keys, no spaces) of `settings`.
std::string fingerprint_of(const nlohmann::json& settings);

// Throws CheckpointError naming the first file that is missing or whose size differs from `metadata`.
void check_file_sizes(const std::filesystem::path& step_dir, const CheckpointMetadata& metadata);
// The same, then each file's SHA-256 (a read of every byte).
void check_files(const std::filesystem::path& step_dir, const CheckpointMetadata& metadata);

std::string utc_timestamp();

}  // namespace mt
