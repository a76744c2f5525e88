#include "output_path.h"

#include <system_error>

#include <fmt/format.h>

#include "runner_error.h"

namespace mt {
namespace {

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code a_error, b_error;
  const std::filesystem::path a_path = std::filesystem::weakly_canonical(a, a_error);
  const std::filesystem::path b_path = std::filesystem::weakly_canonical(b, b_error);
  if (!a_error && !b_error && a_path == b_path) return true;
  std::error_code error;  // the same file under two names (a hard link)
  return std::filesystem::equivalent(a, b, error) && !error;
}

}  // namespace

void refuse_output_onto_database(const std::filesystem::path& output, const std::filesystem::path& db,
                                 std::string_view option) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::path file = db;
    file += suffix;
    if (!same_file(output, file)) continue;
    throw RunnerError(kExitUsage,
                      fmt::format("{} {}: that is {} this command reads; write it elsewhere", option, output.string(),
                                  *suffix ? fmt::format("the file SQLite keeps beside the database {}", db.string())
                                          : fmt::format("the database {}", db.string())));
  }
}

void refuse_one_file_for_two_outputs(const std::filesystem::path& a, std::string_view option_a,
                                     const std::filesystem::path& b, std::string_view option_b) {
  if (!same_file(a, b)) return;
  throw RunnerError(kExitUsage, fmt::format("{} {} and {} {} name the same file: one would replace the other", option_a,
                                            a.string(), option_b, b.string()));
}

}  // namespace mt
