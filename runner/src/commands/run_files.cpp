#include "commands/run_files.h"

#include <system_error>

#include <fmt/format.h>

namespace mt {

std::optional<std::uintmax_t> run_files_bytes(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
  std::uintmax_t total = 0;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      const auto size = it->file_size(size_ec);
      if (!size_ec) total += size;
    }
  }
  return total;
}

std::string run_files_text(const std::filesystem::path& dir) {
  const auto bytes = run_files_bytes(dir);
  if (!bytes) return fmt::format("no run directory ({} does not exist)", dir.string());
  const double kib = double(*bytes) / 1024.0;
  return kib < 1024 ? fmt::format("run directory {} ({:.0f} KiB)", dir.string(), kib)
                    : fmt::format("run directory {} ({:.1f} MiB)", dir.string(), kib / 1024.0);
}

}  // namespace mt
