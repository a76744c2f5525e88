#pragma once
// The job guard: a small mtrun process that sits between the runner and the launcher (mpirun,
// srun). It leads the job's session, adopts orphaned ranks, and when the runner dies — even by
// SIGKILL, which the runner cannot handle — the kernel tells the guard (PR_SET_PDEATHSIG), and the
// guard takes every process of the job down. Without it a killed runner would leave ranks running.
// When the job ends, every process it left — in its session or not, since the guard adopts orphans
// as a child subreaper — is killed and reaped.
namespace mt {

// The hidden subcommand the runner starts as: `mtrun __guard -- COMMAND...`.
constexpr const char* kGuardSubcommand = "__guard";

// Runs COMMAND (argv[0..]) under the guard; returns the exit status to exit with. A command
// killed by a signal is mirrored by the guard dying of the same signal.
int run_job_guard(int argc, char** argv);

}  // namespace mt
