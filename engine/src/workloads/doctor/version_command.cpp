#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "workloads/doctor/commands.h"
#include "core/env/environment.h"

namespace mt {

int run_version_command(bool as_json) {
  const Environment env = build_environment();
  if (as_json) {
    fmt::print("{}\n", to_json(env, /*include_machine=*/false).dump(2));
    return 0;
  }
  fmt::print("mtengine {}{}\n", env.build_revision, env.build_tree_dirty ? " (dirty tree)" : "");
  fmt::print("  libtorch   {}\n  mpi        {}\n  compiler   {}\n  build type {}\n", env.libtorch, env.mpi,
             env.compiler, env.build_type);
  return 0;
}

}  // namespace mt
