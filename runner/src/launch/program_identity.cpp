#include "launch/program_identity.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "experiment/identity.h"

namespace mt {

std::string file_hash(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::stringstream bytes;
  bytes << in.rdbuf();
  return "fnv1a64:" + content_hash(bytes.str());
}

namespace {

std::filesystem::path in_dir(const std::filesystem::path& working_dir, const std::filesystem::path& path) {
  return path.is_relative() && !working_dir.empty() ? working_dir / path : path;
}

}  // namespace

std::filesystem::path resolve_on_path(const std::string& name, const std::filesystem::path& working_dir) {
  if (name.empty()) return name;
  if (name.find('/') != std::string::npos) return in_dir(working_dir, name);
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::filesystem::path candidate = in_dir(working_dir, std::filesystem::path(dir.empty() ? "." : dir) / name);
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return name;
}

ProgramIdentity identify_program(const std::vector<std::string>& argv, const std::filesystem::path& working_dir) {
  ProgramIdentity id;
  if (argv.empty()) return id;
  std::filesystem::path program = resolve_on_path(argv[0], working_dir);
  id.program = program.lexically_normal().string();
  id.program_hash = file_hash(program);
  // Options come before an interpreter's script (python3 -u peer.py); the first argument naming a
  // file is the script. Called before the job starts, so no output file of the run can be taken for it.
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].empty() || argv[i][0] == '-') continue;
    std::filesystem::path script = in_dir(working_dir, argv[i]);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(script, ec)) continue;
    id.script = script.lexically_normal().string();
    id.script_hash = file_hash(script);
    break;
  }
  return id;
}

}  // namespace mt
