#pragma once
// Launchers: how a program becomes a job of N ranks. `mpirun` (this machine, or nodes from a
// hostfile), `slurm` (srun inside an allocation), `local` (one process, no MPI launcher).
#include <filesystem>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/trial.h"
#include "launch/job_cleanup.h"

namespace mt {

struct LaunchContext {
  std::filesystem::path engine;  // absolute path of mtengine
  LauncherConfig launcher;
  bool running_as_root = false;
  int cores = 1;                         // CPU cores of this machine, for the default thread count and oversubscription
  std::filesystem::path experiment_dir;  // for {experiment_dir} in command templates
  // Which of the trials in flight this one is (0, 1, …) when several run at once (`parallel`),
  // choosing its CPU or host set; -1 when trials run one at a time.
  int slot = -1;
  // The Slurm job mtrun runs inside (SLURM_JOB_ID, e.g. under salloc), where srun starts each trial
  // as a step of it; empty outside one. Its node count (SLURM_JOB_NUM_NODES), 0 where not known.
  std::string slurm_allocation;
  int slurm_nodes = 0;
};

// Sets `context`'s slurm_allocation and slurm_nodes from this process's environment (left empty
// and 0 outside an allocation).
void read_slurm_allocation(LaunchContext& context);
// SLURM_JOB_NUM_NODES as a count: 0 where unset or not a positive whole number.
int slurm_node_count(const char* text);

struct LaunchRequest {
  int ranks = 1;
  std::vector<Param> environment;    // exported to every rank
  std::vector<std::string> program;  // what each rank runs
  std::string job_name;              // unique per attempt; lets a launcher find the job again
  // Run once inside the job's own allocation before its ranks start (the look for quiet nodes,
  // run/job_look.h), whatever it returns; only the slurm launcher outside an allocation (srun) or
  // with sbatch makes an allocation of the job's own, and only it runs this. Empty: nothing.
  std::vector<std::string> first;
};

struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<Param> environment;  // set on top of the runner's own environment
  // mpirun names every variable with its value (-x NAME=VALUE), so argv alone reproduces the job.
  bool argv_sets_environment = false;
  std::vector<std::string> program;  // what each rank runs, before the launcher wraps it
  // Run after a job had to be stopped (timeout, Ctrl-C, a killed runner) to make sure nothing of it
  // survives, e.g. `scancel --name JOB`; empty when killing the launcher's session is enough.
  JobCleanup cleanup;
  // Where the job itself writes its output (a batch job: slurmd writes it, not the launcher), relative
  // to the trial's directory; appended to the trial's log when the job ends. Empty: in the log already.
  std::string job_output_file;
  // The job's processes carry MTRUN_JOB=<job name> (marked_processes.h): a scheduler starts them
  // outside mtrun's process tree, and the mark is how their CPU time is told from a neighbour's.
  bool marks_job_processes = false;
  // Prints the job's state while a scheduler may hold it queued (queue_watch.h); empty where the
  // job starts when its launcher does.
  std::vector<std::string> job_state;
};

// The file a Slurm batch job writes its ranks' output to, in the trial's directory.
inline constexpr const char* kBatchJobOutput = "batch-job.out";

LaunchCommand wrap_for_launcher(const LaunchRequest& request, const LaunchContext& context);

// Why `ranks` ranks cannot run with this launcher, or "" when they can.
std::string launcher_rank_problem(const LauncherConfig& launcher, int ranks);

}  // namespace mt
