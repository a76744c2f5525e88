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

// Appends to a file descriptor, all or nothing (retries short writes). Throws naming `what`.
void write_all(int fd, const void* data, std::size_t bytes, const std::string& what);

}  // namespace mt
