#include "launch/launcher.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "experiment/parallel_rules.h"
#include "launch/marked_processes.h"
#include "launch/trial_command.h"

namespace mt {
namespace {

// The experiment's threads_per_rank, else this machine's cores shared among the ranks.
int threads_per_rank(const LaunchContext& context, int ranks) {
  if (context.launcher.threads_per_rank > 0) return context.launcher.threads_per_rank;
  return std::max(1, context.cores / ranks);
}

// The CPU set (no hostfile) or host set (hostfile) of the trial in flight in `slot`, or "".
std::string slot_set(const LaunchContext& context) {
  const auto& sets = context.launcher.hostfile.empty() ? context.launcher.cpu_sets : context.launcher.host_sets;
  if (context.slot < 0 || sets.empty()) return "";
  return sets[std::size_t(context.slot) % sets.size()];
}

LaunchCommand mpirun(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd;
  const bool single_node = context.launcher.hostfile.empty();
  const std::string set = slot_set(context);
  if (single_node && !set.empty()) {
    // A trial beside others on this machine keeps to its CPUs: mpirun and every rank inherit the
    // affinity, and the thread count comes from the set's CPUs, not the machine's.
    cmd.argv = {"taskset", "-c", set};
  }
  for (const char* word : {"mpirun", "-np"}) cmd.argv.push_back(word);
  cmd.argv.push_back(std::to_string(request.ranks));
  if (context.running_as_root) cmd.argv.push_back("--allow-run-as-root");
  const auto set_cpus = single_node && !set.empty() ? parse_cpu_list(set) : std::nullopt;
  const int cores = set_cpus ? int(set_cpus->size()) : context.cores;
  if (single_node && request.ranks > cores) cmd.argv.push_back("--oversubscribe");
  if (single_node) {
    // Shared-memory transport only: halves MPI_Init time for single-node jobs.
    for (const char* arg : {"--mca", "pml", "ob1", "--mca", "btl", "self,vader"}) cmd.argv.push_back(arg);
    LaunchContext within = context;
    within.cores = cores;
    const int threads = threads_per_rank(within, request.ranks);
    // Open MPI binds each rank to one core by default; a rank with several threads needs them all.
    // Within a CPU set, Open MPI's own binding would ignore the set: the ranks keep taskset's.
    if (threads > 1 || set_cpus) {
      cmd.argv.push_back("--bind-to");
      cmd.argv.push_back("none");
    }
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads)});
  } else {
    cmd.argv.push_back("--hostfile");
    cmd.argv.push_back(context.launcher.hostfile.string());
    if (!set.empty()) {  // the hosts of this trial in flight, out of the hostfile's
      cmd.argv.push_back("--host");
      cmd.argv.push_back(set);
    }
    // This machine's cores say nothing of the hosts': only a declared thread count is set.
    if (context.launcher.threads_per_rank > 0) {
      const int threads = context.launcher.threads_per_rank;
      if (threads > 1) {
        cmd.argv.push_back("--bind-to");
        cmd.argv.push_back("none");
      }
      cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads)});
    }
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
// goes to batch-job.out in the attempt's directory, appended to the log when the job ends. Both export the runner's environment (srun
// and sbatch default to --export=ALL), so OMP_NUM_THREADS and the trial's variables need no
// flags. The job name lets `scancel` find a job whose srun was killed (a killed srun can leave
// its job running); inside an existing allocation it names the step, found again by squeue.
LaunchCommand slurm(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd;
  const auto& extra = context.launcher.extra_args;
  // Without -N the job is taken to fit this machine, as mpirun without a hostfile: threads per
  // rank from its cores, and -O (overcommit) when there are more ranks than cores.
  const bool single_node = !requests_nodes(extra);
  if (single_node || context.launcher.threads_per_rank > 0) {
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads_per_rank(context, request.ranks))});
  }
  cmd.environment.insert(cmd.environment.end(), request.environment.begin(), request.environment.end());
  // slurmstepd starts the ranks, not mtrun: marked, their CPU time counts as the job's.
  cmd.environment.push_back({kJobMarkVariable, request.job_name});
  cmd.marks_job_processes = true;

  // A rank that fails ends the job, as with mpirun, instead of leaving the others waiting.
  std::vector<std::string> step = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1"};
  step.insert(step.end(), context.launcher.step_args.begin(), context.launcher.step_args.end());
  std::vector<std::string> job = {"-n", std::to_string(request.ranks)};
  if (single_node && request.ranks > context.cores) job.push_back("-O");
  // Beside other trials: whole nodes of its own, so no two trials share a node.
  if (context.slot >= 0) job.push_back("--exclusive");
  job.push_back("--job-name");
  job.push_back(request.job_name);

  // What runs in the job's own allocation before its ranks: the step then follows in a shell
  // (every word quoted, so parameter values stay words), and inherits ranks and overcommit from the
  // allocation's environment.
  const bool own_allocation = context.launcher.mode == "sbatch" || context.slurm_allocation.empty();
  const std::string first = own_allocation && !request.first.empty() ? shell_quote(request.first) + "; " : "";
  if (context.launcher.mode == "sbatch") {
    step.insert(step.end(), request.program.begin(), request.program.end());
    // The job's output in a file of a known name, which mtrun appends to the trial's log when the
    // job ends: failure reasons, crashed ranks and a command's metrics are read from the log.
    cmd.argv = {"sbatch", "--wait", "--output", kBatchJobOutput};
    cmd.job_output_file = kBatchJobOutput;
    cmd.argv.insert(cmd.argv.end(), job.begin(), job.end());
    cmd.argv.insert(cmd.argv.end(), extra.begin(), extra.end());
    cmd.argv.push_back("--wrap");  // through /bin/sh
    cmd.argv.push_back(first + "exec " + shell_quote(step));
  } else if (!first.empty()) {
    // srun would allocate and start the ranks at once: salloc allocates, runs the shell here, and
    // gives the allocation back when it exits.
    step.insert(step.end(), request.program.begin(), request.program.end());
    cmd.argv = {"salloc"};
    cmd.argv.insert(cmd.argv.end(), job.begin(), job.end());
    cmd.argv.insert(cmd.argv.end(), extra.begin(), extra.end());
    cmd.argv.insert(cmd.argv.end(), {"sh", "-c", first + "exec " + shell_quote(step)});
  } else {
    cmd.argv = step;
    cmd.argv.insert(cmd.argv.end(), job.begin(), job.end());
    cmd.argv.insert(cmd.argv.end(), extra.begin(), extra.end());
    cmd.argv.insert(cmd.argv.end(), request.program.begin(), request.program.end());
  }
  if (context.launcher.mode != "sbatch" && !context.slurm_allocation.empty()) {
    // A step of the caller's allocation: srun asks for it to be cancelled when stopped, but a
    // killed srun leaves it until slurmd is done with it, and the next trial's step would wait for
    // its cores. Steps are cancelled by ID; squeue lists them but cannot filter them by name.
    cmd.cleanup.cancel = {"scancel"};
    cmd.cleanup.cancel_listed = true;
    cmd.cleanup.list_left = {"squeue",     "--me",     "--steps", "--jobs", context.slurm_allocation,
                             "--noheader", "--format", "%i %j"};
    cmd.cleanup.name = request.job_name;
    return cmd;  // and no queue: a step starts when srun does
  }
  cmd.cleanup.cancel = {"scancel", "--me", "--name", request.job_name};
  cmd.cleanup.list_left = {"squeue", "--me", "--name", request.job_name, "--noheader", "--format", "%i %j %T"};
  cmd.cleanup.name = request.job_name;
  cmd.job_state = {"squeue", "--me", "--name", request.job_name, "--noheader", "--format", "%T %r"};
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

void read_slurm_allocation(LaunchContext& context) {
  const char* job = std::getenv("SLURM_JOB_ID");
  context.slurm_allocation = job ? job : "";
  context.slurm_nodes = context.slurm_allocation.empty() ? 0 : slurm_node_count(std::getenv("SLURM_JOB_NUM_NODES"));
}

int slurm_node_count(const char* text) {
  if (!text) return 0;
  char* end = nullptr;
  const long nodes = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && nodes > 0 && nodes < 1000000 ? int(nodes) : 0;
}

LaunchCommand wrap_for_launcher(const LaunchRequest& request, const LaunchContext& context) {
  LaunchCommand cmd = context.launcher.type == "local"   ? local(request, context)
                      : context.launcher.type == "slurm" ? slurm(request, context)
                                                         : mpirun(request, context);
  cmd.program = request.program;
  return cmd;
}

}  // namespace mt
