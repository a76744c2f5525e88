// Files a job writes whole (result JSON, safetensors, traces): each is written to a temporary
// beside its target and renamed over it, so a reader never sees half a file. A rename replaces
// whatever the name was, so the target is what the name finally points to (a symlink's file, not
// the link), and a name that is a device, FIFO, socket or directory is refused up front: renaming
// over `--output /dev/null` would replace the device node with a regular file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mt {

// The file `path` stands for: `path` itself, or, through any chain of symlinks, the path the last
// link names (which need not exist yet). Throws std::runtime_error on a symlink loop.
std::filesystem::path output_target(const std::filesystem::path& path);

// Why `path` cannot receive a whole output file, or nothing: it names a directory, or something
// other than a regular file (through symlinks), or its directory is missing or not writable.
// `flag` names it in the message (--output, OUT).
std::optional<std::string> output_file_problem(const std::string& flag, const std::string& path);

// The same, normalised (absolute, `.` and `..` and symlinked directories resolved), so two
// spellings of one file compare equal.
std::filesystem::path output_identity(const std::filesystem::path& path);

// Throws std::runtime_error naming `path` when its target exists and is not a regular file: the
// last check before a rename, for what changed since output_file_problem() looked.
void require_replaceable(const std::filesystem::path& path);

// Writes `text` to a temporary beside output_target(path) and renames it over that target.
// Throws std::runtime_error naming `path` and the reason (a full disk, a target that became a
// directory or a device since it was checked); the temporary never stays behind.
void write_text_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace mt
