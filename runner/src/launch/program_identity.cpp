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

std::filesystem::path resolve_on_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return name;
}

ProgramIdentity identify_program(const std::vector<std::string>& argv) {
  ProgramIdentity id;
  if (argv.empty()) return id;
  std::filesystem::path program = resolve_on_path(argv[0]);
  id.program = program.lexically_normal().string();
  id.program_hash = file_hash(program);
  // Options come before an interpreter's script (python3 -u peer.py); the first argument naming a
  // file is the script. Output files are written by the run, so none exists before an option names it.
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].empty() || argv[i][0] == '-') continue;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(argv[i], ec)) continue;
    id.script = std::filesystem::path(argv[i]).lexically_normal().string();
    id.script_hash = file_hash(argv[i]);
    break;
  }
  return id;
}

}  // namespace mt
