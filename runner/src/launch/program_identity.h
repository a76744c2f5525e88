#pragma once
// Which program a trial ran, by content: mtengine, or a `command` workload's own program (an
// interpreter, nccl-tests, anything) and the script it was given. A Python peer's provenance
// must name python and its script, not the engine binary that never ran.
#include <filesystem>
#include <string>
#include <vector>

namespace mt {

struct ProgramIdentity {
  std::string program;       // argv[0], resolved on PATH when it has no '/'
  std::string program_hash;  // "fnv1a64:…"; empty when the file cannot be read
  std::string script;        // the first argument that names an existing file (an interpreter's script)
  std::string script_hash;
};

// Identity of the program a rank runs (`argv` before any launcher wraps it) in `working_dir`, where
// relative paths in argv point.
ProgramIdentity identify_program(const std::vector<std::string>& argv, const std::filesystem::path& working_dir);

// `name` as a process in `working_dir` would find it: that path when it has a '/', else the first
// match on PATH.
std::filesystem::path resolve_on_path(const std::string& name, const std::filesystem::path& working_dir = {});

// A content hash of a file's bytes, "fnv1a64:<hex>"; empty if it cannot be read.
std::string file_hash(const std::filesystem::path& file);

}  // namespace mt
