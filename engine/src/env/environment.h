// The software and hardware stack a result was produced on, as recorded in result JSON and
// printed by `mtengine version` / `doctor`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace mt {

struct Environment {
  std::string libtorch;
  std::string mpi;
  std::string compiler;
  std::string build_type;
  std::string build_revision;
  bool build_tree_dirty = false;
  std::string os;
  std::string kernel;
  std::string cpu_model;
  std::string blas;
  std::string simd_kernels;  // instruction set the hand-vectorised kernels run with
};

// Build facts only (cheap, no file reads): what `version` reports.
Environment build_environment();
// Build facts plus the machine: OS, kernel, CPU, the BLAS this process loaded, the kernels' ISA.
Environment collect_environment();

nlohmann::json to_json(const Environment& env, bool include_machine);

// Generated at build time from the git checkout (cmake/WriteBuildRevision.cmake).
const char* build_revision();
bool build_tree_dirty();

}  // namespace mt
