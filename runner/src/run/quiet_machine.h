#pragma once
// Is the machine quiet enough to time on? Measured for a moment with nothing of ours running:
// doctor and the start of `run` warn when it is not, `run --wait-quiet` waits for it before each
// trial, `run --require-quiet` refuses to start timing without it.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/measurement_rules.h"
#include "launch/launcher.h"
#include "launch/machine_conditions.h"
#include "run/attempt_verdict.h"
#include "store/before_launch.h"

namespace mt {

// How long one look at the machine lasts.
inline constexpr double kQuietProbeSeconds = 1.0;

// Where the look is taken: where the trials' ranks run. Here with the local launcher and mpirun on
// this machine; on each node (run/node_look.h) of the allocation mtrun runs in under the slurm
// launcher, and of the hostfile with mpirun. Where each trial gets an allocation of its own (srun
// outside one, or sbatch) its nodes are not known before it starts: the look is taken inside each
// trial's job, first thing, on its nodes (run/job_look.h), and none before the trials. A job's own
// figures still judge each attempt (docs/measurement.md, "A job on other hosts").
struct LookPlace {
  enum class Where { Here, Nodes, InJob } where = Where::Here;
  std::vector<std::string> launcher;        // where Nodes: what starts `mtrun look --json` on each
  int nodes = 0;                            // how many must answer; 0 where not known
  std::string nodes_words;                  // "the allocation's 2 nodes", "the hostfile's hosts"
  std::string nodes_noun;                   // the same without a count: "the allocation's nodes"
  std::filesystem::path mtrun;              // what the launcher starts
  std::string why_in_job;                   // where InJob: why no look can be taken before the trial
  std::string recorded_as = "runner_host";  // the attempt's quiet_where (store/before_launch.h)
};
LookPlace look_place(const LaunchContext& context, const std::filesystem::path& mtrun);
// The nodes of the Slurm allocation this process runs in (SLURM_JOB_ID), as the slurm launcher
// would look at them; nothing outside an allocation.
std::optional<LookPlace> allocation_look_place(const std::filesystem::path& mtrun);
// "on the allocation's 2 nodes (srun)"; "" for Here; why_in_job for InJob.
std::string describe_look_place(const LookPlace& place);

struct QuietCheck {
  // False where nothing could be read (no /proc/stat; a node that gave no reading; no look
  // possible): nothing is known, nothing is claimed.
  bool measured = false;
  Verdict verdict;          // of the last look
  double waited_s = 0;      // time spent looking beyond the first
  std::string unavailable;  // where not measured and it is known why: what went wrong
  bool busy() const { return measured && verdict.disturbed; }
};

// Looks once at `place`; while busy and `wait_s` has not passed, looks again (stopping early when
// `stop` is set). Never waits when the machine is quiet. Given the campaign's usual core round trip
// (store/conditions_rows.h), a look here also times the cores, and reads busy while they are far
// apart as an attempt would be judged: on a VM that state passes in seconds.
QuietCheck check_quiet(const ConditionsThresholds& thresholds, double wait_s = 0,
                       const std::atomic<bool>* stop = nullptr, const LookPlace& place = {},
                       std::optional<double> usual_round_trip_ns = std::nullopt);

// Waits `seconds` with nothing of ours running (returning early when `stop` is set), so that what
// the last job left behind settles before the next is timed: on a VM the kernel hands the memory a
// job freed back to the hypervisor over the next seconds, and a job started meanwhile loses CPU
// time to it (docs/measurement.md, "Settling between trials"). Returns the seconds waited.
double settle(double seconds, const std::atomic<bool>* stop = nullptr);

// Before a trial, as `run --settle` and `--wait-quiet` ask (0: skipped): settles, then looks for a
// quiet machine. `before` is what was done, timed, for the attempt's row; `words` says it for the
// progress line ("settled 10 s", "waited 3 s for a quiet machine"), nothing for a first look that
// found the machine quiet.
struct TrialWait {
  BeforeLaunch before;
  std::vector<std::string> words;
};
// Where the look is taken inside the trial's job (InJob), none is taken here or recorded: the run
// said so once, at its start.
TrialWait wait_before_trial(double settle_s, double wait_quiet_s, const ConditionsThresholds& thresholds,
                            const std::atomic<bool>* stop = nullptr, const LookPlace& place = {},
                            std::optional<double> usual_round_trip_ns = std::nullopt);

// The look half of wait_before_trial, taken whatever `wait_quiet_s` (0: one look) at a place other
// than InJob: `mtrun look --allocation` takes it inside a trial's job.
TrialWait look_before_trial(double wait_quiet_s, const ConditionsThresholds& thresholds, const std::atomic<bool>* stop,
                            const LookPlace& place, std::optional<double> usual_round_trip_ns = std::nullopt);

// How long one look at other nodes may take before it is given up: srun may take a while to start
// a step on a loaded cluster, mpirun to reach its hosts.
inline constexpr double kNodeLookTimeoutS = 60;

// "other processes used 95 % of a core over 1.0 s": what made the last look busy.
std::string busy_reasons(const QuietCheck& check);

}  // namespace mt
