#include "store/attempt_files.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>

namespace mt {
namespace {

bool kept_name(const std::string& name) {
  static const std::regex trace("rank_[0-9]{5,}\\.trace\\.json");
  return name == "profile.json" || std::regex_match(name, trace);
}

// The whole file, or nullopt when it is longer than `limit` (it may grow while being read).
std::optional<std::string> read_bounded(const std::filesystem::path& file, std::uintmax_t limit) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string content;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, std::size_t(in.gcount()));
    if (content.size() > limit) return std::nullopt;
  }
  return content;
}

}  // namespace

std::vector<AttemptFile> files_to_keep(const Trial& trial, const AttemptOutcome& outcome,
                                       const std::filesystem::path& run_dir) {
  if (!trial.profile || trial.repeat_index != 0 || outcome.state != AttemptState::Succeeded) return {};
  return profile_files(run_dir);
}

std::vector<AttemptFile> profile_files(const std::filesystem::path& run_dir) {
  const std::filesystem::path dir = run_dir / kProfileDirName;
  std::error_code ec;
  if (!std::filesystem::is_directory(std::filesystem::symlink_status(dir, ec))) return {};
  std::vector<std::string> names;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code status_ec;
    if (kept_name(name) && std::filesystem::is_regular_file(it->symlink_status(status_ec))) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::vector<AttemptFile> out;
  std::uintmax_t total = 0;
  for (const auto& name : names) {
    auto content = read_bounded(dir / name, std::min(kMaxKeptFileBytes, kMaxKeptBytes - total));
    if (!content) continue;
    total += content->size();
    out.push_back({std::string(kProfileDirName) + "/" + name, std::move(*content)});
  }
  return out;
}

}  // namespace mt
