// mtrun rerun --failed|--disturbed: runs again, as new attempts, exactly the trials of a campaign
// whose latest attempt did not succeed (and any never started because a runner was stopped), or
// whose reported attempt ran on a disturbed machine (store/rerun_selection.h). Trials are rebuilt
// from the database, so an edited experiment file does not change what is re-run.

#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "run/campaign_runner.h"
#include "store/campaign_lookup.h"
#include "store/campaign_measurement.h"
#include "store/rerun_selection.h"
#include "commands/campaign_selection.h"
#include "commands/campaign_command.h"
#include "commands/advised_command.h"
#include "commands/commands.h"
#include "launch/engine_workloads.h"
#include "commands/experiment_plan.h"
#include "launch/process.h"
#include "runner_error.h"
#include "store/trial_json.h"

namespace mt {
namespace {

struct RerunOptions {
  std::filesystem::path db;
  RerunSelection which;
  std::optional<std::string> campaign;
  std::optional<std::filesystem::path> engine;
  MeasurementSettings measurement;
};

// "3 trial(s) to run again (2 did not succeed, 1 never started; 1 ran on a disturbed machine)":
// each selection asked for says what it found.
std::string what_reruns(const RerunSelection& which, const TrialsToRerun& found) {
  std::vector<std::string> parts;
  if (which.failed)
    parts.push_back(
        fmt::format("{} did not succeed, {} never started", found.failed - found.never_started, found.never_started));
  if (which.disturbed) parts.push_back(fmt::format("{} ran on a disturbed machine", found.disturbed));
  return fmt::format("{} trial(s) to run again ({})", found.rows.size(), fmt::join(parts, "; "));
}

// What finishes a stopped rerun: the same selection again, which picks the trials not run (they
// still failed, or still have a disturbed attempt reported) and the one stopped.
std::string how_to_finish(const RerunSelection& which, const std::filesystem::path& db,
                          const std::string& campaign_id) {
  std::vector<std::string> words = {"rerun"};
  if (which.failed) words.push_back("--failed");
  if (which.disturbed) words.push_back("--disturbed");
  words.insert(words.end(), {"--campaign", campaign_id});
  return fmt::format("{} again runs them", advised_command(db, words));
}

int rerun(const RerunOptions& options, std::ostream& out) {
  if (!options.which.failed && !options.which.disturbed)
    throw RunnerError(kExitUsage, "rerun needs --failed, --disturbed or both: which trials to run again");
  require_database(options.db);
  Store store(options.db);
  store.db().wait_for_locks(Store::kLockPatience, &g_stop_requested);  // Ctrl-C stops a wait for the lock
  const Campaign campaign = select_campaign(store.db(), options.campaign);
  CampaignLease lease(store.db(), campaign.id, RunnerId::self(), std::time(nullptr));
  recover_stale_attempts(store, lease, out);
  const TrialsToRerun found = trials_to_rerun(store.db(), campaign.id, options.which);
  PendingTrials to_run;
  to_run.rows = found.rows;
  to_run.trial = [&store, &to_run](std::size_t i) { return store.trial_spec(to_run.rows[i]); };
  fmt::print(out, "campaign {} ({}): {}\n", campaign.id, campaign.experiment, what_reruns(options.which, found));
  if (to_run.rows.empty()) return kExitOk;

  const auto experiment_dir = std::filesystem::path(campaign.experiment_file).parent_path();
  LaunchContext context = local_launch_context(launcher_from_json(campaign.launcher), options.engine, experiment_dir);
  load_engine_workloads(context.engine);  // how the stored trials' parameters become engine flags
  // Judged by the rules the campaign was run with; adaptive rounds are `run`'s to add.
  MeasurementSettings measurement = options.measurement;
  const CampaignMeasurement recorded = read_campaign_measurement(store.db(), campaign.id);
  if (!recorded.measurement.empty()) {
    const auto j = nlohmann::json::parse(recorded.measurement, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("conditions"))
      measurement.conditions = thresholds_from_json(j["conditions"].dump());
  }
  return run_campaign_trials(store, lease, context, capture_provenance_context(experiment_dir, context.engine), to_run,
                             measurement, how_to_finish(options.which, options.db, campaign.id), options.db, out);
}

}  // namespace

CommandRunner register_rerun_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<RerunOptions>();
  auto* cmd = app.add_subcommand(
      "rerun",
      "run again, as new attempts, the trials whose latest attempt failed (--failed) or whose reported attempt ran "
      "on a disturbed machine (--disturbed)");
  cmd->add_flag("--failed", options->which.failed,
                "select trials whose latest attempt did not succeed (or that never started)");
  cmd->add_flag("--disturbed", options->which.disturbed,
                "select trials whose reported attempt (the latest that succeeded) ran on a disturbed machine, which "
                "reports leave out of their means; judged again by the campaign's own conditions");
  cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the latest)");
  cmd->add_option("--engine", options->engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  add_quiet_options(*cmd, options->measurement);
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    become_child_subreaper();
    return rerun(*options, out);
  };
}

}  // namespace mt
