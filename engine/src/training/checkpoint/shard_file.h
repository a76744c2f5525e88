// One rank's shard of a checkpoint: named tensors in one file. Layout: the magic "MTSHARD1", the
// length of a JSON header (8 bytes, little-endian), the header (format version and, per tensor:
// name, dtype, shape, offset and length of its bytes, SHA-256 of its bytes), then the tensors'
// bytes back to back. Tensors are read back on the CPU; callers copy them where they live.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "training/checkpoint/named_tensor.h"

namespace mt {

struct ShardEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t offset = 0, bytes = 0;
  std::string sha256;  // of the tensor's bytes
};

constexpr int kShardFormatVersion = 1;

// What was written: the file's size and SHA-256, digested on the way out (no second read).
struct WrittenFile {
  uint64_t bytes = 0;
  std::string sha256;
};

// Writes and fsyncs the file. `after_tensor(i)` runs after the i-th tensor's bytes are written
// (fault injection: a rank dying in the middle of a save).
WrittenFile write_shard_file(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                             const std::function<void(std::size_t)>& after_tensor = {});

// The header only, validated (magic, version, extents within the file). Throws CheckpointError.
std::vector<ShardEntry> read_shard_index(const std::filesystem::path& path);

// Reads parts of a shard's tensors without loading the rest (the file's digest is the caller's
// concern: check the step's files first).
class ShardReader {
 public:
  explicit ShardReader(const std::filesystem::path& path);  // reads and validates the header
  ~ShardReader();
  ShardReader(ShardReader&&) noexcept;
  const std::vector<ShardEntry>& entries() const;
  // Elements [first, first + count) of the flat form of tensor `name`. Throws CheckpointError.
  torch::Tensor read_elements(const std::string& name, int64_t first, int64_t count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Every tensor, in one sequential read. With the file's recorded SHA-256 (`file_sha256`, from the
// checkpoint's metadata) the whole file is digested on the way in and checked once at the end;
// without it, each tensor against its own digest. Throws CheckpointError naming the file, and the
// tensor where one is to blame.
std::vector<NamedTensor> read_shard_file(const std::filesystem::path& path, const std::string& file_sha256 = "");

}  // namespace mt
