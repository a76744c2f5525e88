#pragma once
// The part `run` and `rerun` share once they know which trials to run: launch them from this
// mtrun (under job guards, stoppable with Ctrl-C), then print the summary and pick the exit code.
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "launch/launcher.h"
#include "launch/provenance.h"
#include "run/campaign_runner.h"
#include "store/lease.h"
#include "store/store.h"

namespace mt {

// Runs while `lease` is held, renewing it (LeaseKeeper).
int run_campaign_trials(Store& store, const CampaignLease& lease, const LaunchContext& context,
                        const ProvenanceContext& provenance, const PendingTrials& trials,
                        const std::filesystem::path& db, std::ostream& out);

}  // namespace mt
