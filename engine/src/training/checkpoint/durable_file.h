// Files that survive a crash once written: data and directory entries reach the disk (fsync)
// before anything refers to them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace mt {

// Writes `bytes` to `path` (created or truncated) and fsyncs it. Throws naming the path.
void write_durable_file(const std::filesystem::path& path, const std::string& bytes);
void fsync_path(const std::filesystem::path& path);  // a file or a directory

// Throws CheckpointError when `path` exists but is not a regular file (a FIFO would block its
// reader forever; a device or directory is not a checkpoint). A missing file is left to the
// caller, which names what it expected.
void require_regular_file(const std::filesystem::path& path);

// Appends to a file descriptor, all or nothing (retries short writes). Throws naming `what`.
void write_all(int fd, const void* data, std::size_t bytes, const std::string& what);

}  // namespace mt
