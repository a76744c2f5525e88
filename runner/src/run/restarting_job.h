#pragma once
// One job under its study's restart policy (experiment/restart_policy.h): launched; while it ends
// crashed, failed (not on bad input: exit 2) or timed out and restarts are left, relaunched in the
// same directory from the newest READY checkpoint, without the injected faults it reached. Each earlier
// launch's log and result stay beside the job's as launch-N.log.txt and launch-N.result.json; the
// outcome is the last launch's, with every launch in AttemptOutcome::launches.
#include <filesystem>
#include <functional>
#include <string>

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

// The steps completed that the engine's --progress file names; none when it is missing or unreadable.
std::optional<int> read_progress(const std::filesystem::path& file);

}  // namespace mt
