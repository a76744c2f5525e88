#include "launcher.h"

#include <algorithm>

#include <fmt/format.h>

namespace mt {
namespace {

int threads_per_rank(const LaunchContext& context, int ranks) { return std::max(1, context.cores / ranks); }

LaunchCommand mpirun(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd;
  const bool single_node = context.launcher.hostfile.empty();
  cmd.argv = {"mpirun", "-np", std::to_string(request.ranks)};
  if (context.running_as_root) cmd.argv.push_back("--allow-run-as-root");
  if (single_node && request.ranks > context.cores) cmd.argv.push_back("--oversubscribe");
  if (single_node) {
    // Shared-memory transport only: halves MPI_Init time for single-node jobs.
    for (const char* arg : {"--mca", "pml", "ob1", "--mca", "btl", "self,vader"}) cmd.argv.push_back(arg);
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads_per_rank(context, request.ranks))});
  } else {
    cmd.argv.push_back("--hostfile");
    cmd.argv.push_back(context.launcher.hostfile.string());
  }
  cmd.environment.insert(cmd.environment.end(), request.environment.begin(), request.environment.end());
  for (const auto& e : cmd.environment) {  // mpirun forwards only what it is told to (other nodes)
    cmd.argv.push_back("-x");
    cmd.argv.push_back(e.name);
  }
  cmd.argv.insert(cmd.argv.end(), context.launcher.extra_args.begin(), context.launcher.extra_args.end());
  cmd.argv.insert(cmd.argv.end(), request.program.begin(), request.program.end());
  return cmd;
}

LaunchCommand local(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd;
  cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(context.cores)});
  cmd.environment.insert(cmd.environment.end(), request.environment.begin(), request.environment.end());
  cmd.argv = request.program;
  return cmd;
}

}  // namespace

std::string launcher_rank_problem(const LauncherConfig& launcher, int ranks) {
  if (launcher.type == "local" && ranks != 1) {
    return fmt::format("the local launcher runs a single process, but ranks is {}; use launcher mpirun or slurm", ranks);
  }
  return "";
}

LaunchCommand wrap_for_launcher(const LaunchRequest& request, const LaunchContext& context) {
  if (context.launcher.type == "local") return local(request, context);
  return mpirun(request, context);
}

}  // namespace mt
