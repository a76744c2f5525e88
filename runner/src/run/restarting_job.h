#pragma once
// One job under its study's restart policy (experiment/restart_policy.h): launched; while it ends
// crashed, failed (not on bad input: exit 2) or timed out and restarts are left, relaunched in the
// same directory from the newest READY checkpoint, without the injected faults it reached. Each
// earlier launch's log, result and progress stay beside the job's as launch-N.log.txt,
// launch-N.result.json and launch-N.progress; the outcome is the last launch's, with every launch
// in AttemptOutcome::launches.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiment/trial.h"
#include "launch/launcher.h"
#include "run/campaign_runner.h"
#include "store/store.h"

namespace mt {

// Launches one command in the job's directory (its log.txt, result.json) and classifies how it ended.
using LaunchOnce = std::function<AttemptOutcome(const LaunchCommand&)>;

// `job`: the trial whose command `first` is (a chain's stage as a trial of its own workload);
// without a restart policy, exactly one launch.
AttemptOutcome run_restarting(const CampaignRun& run, const Trial& job, const LaunchCommand& first,
                              const std::filesystem::path& dir, const std::string& job_name, const LaunchOnce& launch);

// Whether a launch that ended so is worth another: it crashed, timed out, or failed other than on
// bad input (the engine's exit 2, which a relaunch would meet again).
bool restartable(const AttemptOutcome& outcome);

// What the engine's --progress-file holds: each change of the steps completed, with when.
struct ProgressPoint {
  int steps = 0;
  double unix_s = 0;
};

// The points of a progress file in order; none when it is missing. Lines that do not parse (a line
// cut short by the kill) end the reading.
std::vector<ProgressPoint> read_progress(const std::filesystem::path& file);

// The time to recover from a launch that had done `reached` steps when last seen progressing at
// `last_seen_unix_s`, given its relaunch's progress: until the relaunch first had `reached` steps
// done. None when it never got there.
std::optional<double> time_to_recover(int reached, double last_seen_unix_s, const std::vector<ProgressPoint>& next);

}  // namespace mt
