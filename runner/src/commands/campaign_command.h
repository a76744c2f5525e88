#pragma once
// The part `run` and `rerun` share once they know which trials to run: launch them from this
// mtrun (under job guards, stoppable with Ctrl-C), then print the summary and pick the exit code.
#include <filesystem>
#include <map>
#include <iosfwd>
#include <string>
#include <vector>

#include "launch/launcher.h"
#include "launch/provenance.h"
#include "run/campaign_runner.h"
#include "store/lease.h"
#include "store/store.h"

namespace CLI {
class App;
}

namespace mt {

// How the campaign's measurements are taken and judged (docs/measurement.md).
struct MeasurementSettings {
  ConditionsThresholds conditions;
  double settle_s = 0;         // --settle: before each trial, first wait this long with nothing running
  double wait_quiet_s = 0;     // --wait-quiet: before each trial, wait up to this long for a quiet machine
  bool require_quiet = false;  // --require-quiet: refuse to start timing on a busy machine
  std::map<std::string, RepeatPolicy> adaptive;  // studies with adaptive repeats
  int parallel = 0;  // --parallel: trials in flight at once; 0: as the experiment says (`parallel`), else 1
};

// Runs while `lease` is held, renewing it (LeaseKeeper): first a look at the machine (a warning when
// it is busy; with require_quiet, RunnerError kExitBusy), then `trials`, then adaptive rounds while
// any configuration needs one.
int run_campaign_trials(Store& store, const CampaignLease& lease, const LaunchContext& context,
                        const ProvenanceContext& provenance, const PendingTrials& trials,
                        const MeasurementSettings& settings, const std::filesystem::path& db, std::ostream& out);

// --settle SECONDS, --wait-quiet SECONDS, --require-quiet and --parallel N on run and rerun.
void add_quiet_options(CLI::App& command, MeasurementSettings& settings);

}  // namespace mt
