#pragma once
// The launcher's backstop after a job had to be stopped (timeout, Ctrl-C, a killed runner): a
// scheduler's job can outlive the process that submitted it (a batch job outlives a killed
// `sbatch --wait`, a killed srun can leave its job running), so killing the launcher's processes
// is not enough. The job is cancelled by name, then the scheduler is asked what is left of it
// until nothing is, cancelling again every few seconds; bounded, so a scheduler that does not
// answer cannot hang the runner. A step inside the caller's allocation has no name to cancel by:
// it is cancelled by the IDs the scheduler lists for it.
#include <ostream>
#include <string>
#include <vector>

namespace mt {

struct JobCleanup {
  std::vector<std::string> cancel;     // e.g. `scancel --me --name JOB`; empty: nothing to do
  std::vector<std::string> list_left;  // prints a line per piece of the job still known ("ID NAME
                                       // STATE"), nothing once it is gone (squeue); empty: not checked
  // Only listed lines whose second word is this name are the job's (Slurm 22.05's squeue ignores
  // --name for steps); empty: every line is.
  std::string name;
  // `cancel` takes the listed pieces' IDs (their first words) after its own words, and runs only
  // once something is listed: `scancel` + step IDs.
  bool cancel_listed = false;
  bool empty() const { return cancel.empty(); }
};

struct CleanupLimits {
  double wait_s = 60;             // how long to wait for the job to be gone (Slurm's KillWait is 30 s)
  double cancel_again_s = 5;      // between repeated cancels while it is still listed
  double poll_s = 0.5;            // between looks
  double command_timeout_s = 15;  // for each cancel or look
};

// Runs the cleanup and says, in words, what may be left of the job: "" when the scheduler no
// longer lists it (or there is nothing to check and the cancel ran). Each command and its outcome
// goes to `log`, the trial's log.
std::string clean_up_job(const JobCleanup& cleanup, std::ostream& log, const CleanupLimits& limits = {});

}  // namespace mt
