#include "commands/advised_command.h"

#include "commands/commands.h"
#include "launch/trial_command.h"

namespace mt {

std::string advised_command(const std::filesystem::path& db, const std::vector<std::string>& words) {
  std::vector<std::string> argv = {"mtrun"};
  if (db != GlobalOptions{}.db) argv.insert(argv.end(), {"--db", db.string()});
  argv.insert(argv.end(), words.begin(), words.end());
  return "`" + shell_quote(argv) + "`";
}

}  // namespace mt
