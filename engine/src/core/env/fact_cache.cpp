#include "core/env/fact_cache.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace mt {
namespace {

std::filesystem::path cache_dir() {
  if (const char* dir = std::getenv("MT_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "mtengine";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "mtengine";
  return {};
}

// FNV-1a, 64 bits: stable across builds and machines, unlike std::hash.
std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::filesystem::path fact_file(const std::string& key) {
  const std::filesystem::path dir = cache_dir();
  return dir.empty() ? dir : dir / fmt::format("fact-{:016x}", fnv1a64(key));
}

}  // namespace

std::optional<std::string> recalled_fact(const std::string& key) {
  const std::filesystem::path file = fact_file(key);
  if (file.empty()) return std::nullopt;
  std::ifstream in(file);
  std::string stored_key, value;
  // The file repeats its key: a hash collision or a damaged file is learned again.
  if (std::getline(in, stored_key) && stored_key == key && std::getline(in, value) && !value.empty()) return value;
  return std::nullopt;
}

void keep_fact(const std::string& key, const std::string& value) {
  const std::filesystem::path file = fact_file(key);
  if (file.empty() || value.empty() || key.find('\n') != std::string::npos || value.find('\n') != std::string::npos)
    return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  // Ranks of one job learn at once: each writes its own file and renames it into place.
  const std::filesystem::path temporary = file.string() + fmt::format(".{}.tmp", ::getpid());
  {
    std::ofstream out(temporary);
    out << key << '\n' << value << '\n';
    if (!out) return;
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

std::string remembered_fact(const std::string& key, const std::function<std::string()>& learn) {
  if (auto known = recalled_fact(key)) return *known;
  const std::string value = learn();
  keep_fact(key, value);
  return value;
}

}  // namespace mt
