#include "core/job/path_checks.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

namespace mt {

std::optional<std::string> output_directory_problem(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::absolute(path, ec);
  if (ec) return fmt::format("{} '{}': {}", flag, path, ec.message());
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) return fmt::format("{} '{}' is not a directory", flag, path);
  // The directory itself, or the nearest ancestor it would be created in.
  fs::path existing = dir;
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::is_directory(existing, ec))
    return fmt::format("{} '{}': '{}' is not a directory", flag, path, existing.string());
  if (access(existing.c_str(), W_OK) != 0)
    return fmt::format("{} '{}': '{}' is not writable", flag, path, existing.string());
  return std::nullopt;
}

}  // namespace mt
