#pragma once
// Where a command may write what it was asked to write. Reading commands (report, compare,
// history, show) open the database read-only, but an output path is the user's: one that names
// the database, or a file SQLite keeps beside it, would replace what the command reads from.
#include <filesystem>
#include <string_view>

namespace mt {

// Throws RunnerError(kExitUsage), before anything is read or written, when `output` (given with
// `option`) is the database `db` or its -wal, -shm or -journal file, by name or as the same file
// (a link).
void refuse_output_onto_database(const std::filesystem::path& output, const std::filesystem::path& db,
                                 std::string_view option);

// Throws RunnerError(kExitUsage) when two outputs of one command (given with `option_a` and
// `option_b`) name the same file, by name or as a link: the second written would replace the first.
void refuse_one_file_for_two_outputs(const std::filesystem::path& a, std::string_view option_a,
                                     const std::filesystem::path& b, std::string_view option_b);

}  // namespace mt
