#pragma once
// The part `run` and `rerun` share once they know which trials to run: launch them from this
// mtrun (under job guards, stoppable with Ctrl-C), then print the summary and pick the exit code.
#include <filesystem>
#include <map>
#include <optional>
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
  // --settle / --wait-quiet, where given: they override the experiment's `conditions: settle_s /
  // wait_quiet_s` (in `conditions`), which apply otherwise.
  std::optional<double> settle_s;                // before each trial, first wait this long with nothing running
  std::optional<double> wait_quiet_s;            // before each trial, wait up to this long for a quiet machine
  bool require_quiet = false;                    // --require-quiet: refuse to start timing on a busy machine
  std::map<std::string, RepeatPolicy> adaptive;  // studies with adaptive repeats
  int parallel = 0;  // --parallel: trials in flight at once; 0: as the experiment says (`parallel`), else 1

  double settle_seconds() const { return settle_s.value_or(conditions.settle_s); }
  double wait_quiet_seconds() const { return wait_quiet_s.value_or(conditions.wait_quiet_s); }
};

// Runs while `lease` is held, renewing it (LeaseKeeper): first a look at the machine (a warning when
// it is busy; with require_quiet, RunnerError kExitBusy), then `trials`, then adaptive rounds while
// any configuration needs one. `how_to_finish` is what the runner says finishes the campaign when it
// is stopped (finish_campaign).
int run_campaign_trials(Store& store, const CampaignLease& lease, const LaunchContext& context,
                        const ProvenanceContext& provenance, const PendingTrials& trials,
                        const MeasurementSettings& settings, const std::string& how_to_finish,
                        const std::filesystem::path& db, std::ostream& out);

// --settle SECONDS, --wait-quiet SECONDS, --require-quiet and --parallel N on run and rerun.
void add_quiet_options(CLI::App& command, MeasurementSettings& settings);

}  // namespace mt
