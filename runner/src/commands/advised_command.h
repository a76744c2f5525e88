#pragma once
// The mtrun command a message advises, as the user would type it to act on it: with the --db this
// run was given (a suggestion without it would act on the default database) and every word
// shell-quoted (a path with a space pastes as one word).
#include <filesystem>
#include <string>
#include <vector>

namespace mt {

// "`mtrun --db 'my results.sqlite' rerun --failed --campaign 0123456789ab`"; --db only where `db`
// is not the default.
std::string advised_command(const std::filesystem::path& db, const std::vector<std::string>& words);

}  // namespace mt
