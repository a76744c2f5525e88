#pragma once
// What a campaign's run directory (runs/<campaign>/ beside the database: logs, results, traces)
// holds on disk, for the commands that list or remove campaigns.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace mt {

// Bytes of the regular files under `dir`; nullopt when there is no such directory. Entries that
// cannot be read are skipped.
std::optional<std::uintmax_t> run_files_bytes(const std::filesystem::path& dir);

// "run directory DIR (12 KiB)", "(3.4 MiB)", or "no run directory (DIR does not exist)".
std::string run_files_text(const std::filesystem::path& dir);

}  // namespace mt
