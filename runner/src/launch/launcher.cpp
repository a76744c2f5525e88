#include "launch/launcher.h"

#include <algorithm>

#include <fmt/format.h>

#include "launch/trial_command.h"

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
    const int threads = threads_per_rank(context, request.ranks);
    // Open MPI binds each rank to one core by default; a rank with several threads needs them all.
    if (threads > 1) {
      cmd.argv.push_back("--bind-to");
      cmd.argv.push_back("none");
    }
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads)});
  } else {
    cmd.argv.push_back("--hostfile");
    cmd.argv.push_back(context.launcher.hostfile.string());
  }
  cmd.environment.insert(cmd.environment.end(), request.environment.begin(), request.environment.end());
  // mpirun forwards only what it is told to (other nodes); with the value, the recorded command
  // says what the job ran with.
  for (const auto& e : cmd.environment) {
    cmd.argv.push_back("-x");
    cmd.argv.push_back(e.name + "=" + e.value);
  }
  cmd.argv_sets_environment = true;
  cmd.argv.insert(cmd.argv.end(), context.launcher.extra_args.begin(), context.launcher.extra_args.end());
  cmd.argv.insert(cmd.argv.end(), request.program.begin(), request.program.end());
  return cmd;
}

// Whether the launcher args ask Slurm for nodes (-N 2, -N2, --nodes 2, --nodes=2): then the
// job may span nodes and this machine's core count says nothing about it.
bool requests_nodes(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.rfind("-N", 0) == 0 || a == "--nodes" || a.rfind("--nodes=", 0) == 0;
  });
}

// Two modes. `srun` (the default) runs each trial as `srun` in the caller's allocation when
// SLURM_JOB_ID is set, otherwise in an allocation of its own. `sbatch` submits each trial as a
// batch job with `sbatch --wait`, whose script runs the same srun step; the ranks' output then
// goes to slurm-JOBID.out in the attempt's directory. Both export the runner's environment (srun
// and sbatch default to --export=ALL), so OMP_NUM_THREADS and the trial's variables need no
// flags. The job name lets `scancel` find a job whose srun was killed (a killed srun can leave
// its job running); inside an existing allocation it names the step, which srun ends itself.
LaunchCommand slurm(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd;
  const auto& extra = context.launcher.extra_args;
  // Without -N the job is taken to fit this machine, as mpirun without a hostfile: threads per
  // rank from its cores, and -O (overcommit) when there are more ranks than cores.
  const bool single_node = !requests_nodes(extra);
  if (single_node) {
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads_per_rank(context, request.ranks))});
  }
  cmd.environment.insert(cmd.environment.end(), request.environment.begin(), request.environment.end());

  // A rank that fails ends the job, as with mpirun, instead of leaving the others waiting.
  std::vector<std::string> step = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1"};
  std::vector<std::string> job = {"-n", std::to_string(request.ranks)};
  if (single_node && request.ranks > context.cores) job.push_back("-O");
  job.push_back("--job-name");
  job.push_back(request.job_name);

  if (context.launcher.mode == "sbatch") {
    // The step inherits ranks and overcommit from the batch job's environment.
    step.insert(step.end(), request.program.begin(), request.program.end());
    cmd.argv = {"sbatch", "--wait"};
    cmd.argv.insert(cmd.argv.end(), job.begin(), job.end());
    cmd.argv.insert(cmd.argv.end(), extra.begin(), extra.end());
    // --wrap goes through /bin/sh: every word is quoted so parameter values stay words.
    cmd.argv.push_back("--wrap");
    cmd.argv.push_back("exec " + shell_quote(step));
  } else {
    cmd.argv = step;
    cmd.argv.insert(cmd.argv.end(), job.begin(), job.end());
    cmd.argv.insert(cmd.argv.end(), extra.begin(), extra.end());
    cmd.argv.insert(cmd.argv.end(), request.program.begin(), request.program.end());
  }
  cmd.cleanup_argv = {"scancel", "--me", "--name", request.job_name};
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
    return fmt::format("the local launcher runs a single process, but ranks is {}; use launcher mpirun or slurm",
                       ranks);
  }
  return "";
}

LaunchCommand wrap_for_launcher(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd = context.launcher.type == "local"   ? local(request, context)
                      : context.launcher.type == "slurm" ? slurm(request, context)
                                                         : mpirun(request, context);
  cmd.program = request.program;
  return cmd;
}

}  // namespace mt
