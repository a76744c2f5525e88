#include "commands/run_files.h"

#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands/commands.h"
#include "store/sqlite_db.h"

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

std::optional<std::uintmax_t> run_files_bytes(const std::vector<std::filesystem::path>& dirs) {
  std::optional<std::uintmax_t> total;
  for (const auto& dir : dirs) {
    if (const auto bytes = run_files_bytes(dir)) total = total.value_or(0) + *bytes;
  }
  return total;
}

std::vector<std::filesystem::path> campaign_file_dirs(Database& db, const std::filesystem::path& db_file,
                                                      const std::string& campaign_id) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  if (const auto own = campaign_runs_dir(db_file, campaign_id); std::filesystem::is_directory(own, ec)) {
    dirs.push_back(own);
  }
  const std::filesystem::path shared = std::filesystem::absolute(db_file).parent_path() / "runs" / campaign_id;
  auto recorded = db.prepare(
      "SELECT 1 FROM attempts a JOIN trials t ON t.id = a.trial_id WHERE t.campaign_id = ?1 AND "
      "substr(a.run_dir, 1, length(?2) + 1) = ?2 || '/' LIMIT 1");
  recorded.bind(1, campaign_id);
  recorded.bind(2, shared.string());
  if (recorded.step() && std::filesystem::is_directory(shared, ec)) dirs.push_back(shared);
  return dirs;
}

std::string run_files_text(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& expected) {
  if (dirs.empty()) return fmt::format("no run directory ({} does not exist)", expected.string());
  std::vector<std::string> each;
  for (const auto& dir : dirs) {
    const double kib = double(run_files_bytes(dir).value_or(0)) / 1024.0;
    each.push_back(kib < 1024 ? fmt::format("{} ({:.0f} KiB)", dir.string(), kib)
                              : fmt::format("{} ({:.1f} MiB)", dir.string(), kib / 1024.0));
  }
  return fmt::format("run director{} {}", dirs.size() == 1 ? "y" : "ies", fmt::join(each, " and "));
}

}  // namespace mt
