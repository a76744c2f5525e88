#pragma once
// The job guard: a small mtrun process that sits between the runner and the launcher (mpirun,
// srun). It leads the job's session, adopts orphaned ranks, and when the runner dies — even by
// SIGKILL, which the runner cannot handle — the kernel tells the guard (PR_SET_PDEATHSIG), and the
// guard takes every process of the job down, then runs the launcher's cleanup (job_cleanup.h: a
// Slurm job outlives a killed sbatch). Without it a killed runner would leave ranks running.
// When the job ends, every process it left — in its session or not, since the guard adopts orphans
// as a child subreaper — is killed and reaped.
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "launch/job_cleanup.h"

namespace mt {

// The hidden subcommand the runner starts as:
// `mtrun __guard [--cancel WORD]... [--list-left WORD]... [--name NAME] [--cancel-listed] -- COMMAND...`.
constexpr const char* kGuardSubcommand = "__guard";

// The parent-death signal the guard asks for: apart from SIGTERM, which a live runner sends to stop
// a job it then cleans up itself.
constexpr int kRunnerDeathSignal = SIGUSR1;

// The guard's arguments for running `program` (its own arguments follow) with `cleanup`.
std::vector<std::string> guard_arguments(const JobCleanup& cleanup, const std::string& program);

struct GuardCommand {
  JobCleanup cleanup;
  std::vector<std::string> command;  // never empty
};

// The arguments after `__guard` read back; nullopt when they are malformed.
std::optional<GuardCommand> parse_guard_arguments(const std::vector<std::string>& args);

// Runs the command under the guard (args as after `__guard`); returns the exit status to exit with.
// A command killed by a signal is mirrored by the guard dying of the same signal.
int run_job_guard(int argc, char** argv);

}  // namespace mt
