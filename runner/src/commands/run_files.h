#pragma once
// What a campaign's run directories (logs, results, traces) hold on disk, for the commands that
// list or remove campaigns.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mt {

class Database;

// Bytes of the regular files under `dir`; nullopt when there is no such directory. Entries that
// cannot be read are skipped.
std::optional<std::uintmax_t> run_files_bytes(const std::filesystem::path& dir);
// The same over several directories; nullopt when none of them exists.
std::optional<std::uintmax_t> run_files_bytes(const std::vector<std::filesystem::path>& dirs);

// The directories a campaign's attempts wrote to that are there: its run directory
// (campaign_runs_dir), and, for a campaign begun before each database had a folder of its own in
// runs/, runs/<campaign>/ where the database's own attempts recorded it as theirs. A directory
// another database's attempts wrote to is never named.
std::vector<std::filesystem::path> campaign_file_dirs(Database& db, const std::filesystem::path& db_file,
                                                      const std::string& campaign_id);

// "run directory DIR (12 KiB)", "run directories A (1 KiB) and B (3.4 MiB)", or "no run directory
// (DIR does not exist)" where `dirs` is empty and `expected` is where it would be.
std::string run_files_text(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& expected);

}  // namespace mt
