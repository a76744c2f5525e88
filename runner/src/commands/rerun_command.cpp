// mtrun rerun --failed: runs again, as new attempts, exactly the trials of a campaign whose latest
// attempt did not succeed (and any never started because a runner was stopped). Trials are
// rebuilt from the database, so an edited experiment file does not change what is re-run.

#include <ctime>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "run/campaign_runner.h"
#include "store/campaign_lookup.h"
#include "store/campaign_measurement.h"
#include "commands/campaign_selection.h"
#include "commands/campaign_command.h"
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
  bool failed = false;
  std::optional<std::string> campaign;
  std::optional<std::filesystem::path> engine;
  MeasurementSettings measurement;
};

int rerun_failed(const RerunOptions& options, std::ostream& out) {
  if (!options.failed) throw RunnerError(kExitUsage, "rerun needs --failed (the only selection so far)");
  require_database(options.db);
  Store store(options.db);
  const Campaign campaign = select_campaign(store.db(), options.campaign);
  CampaignLease lease(store.db(), campaign.id, RunnerId::self(), std::time(nullptr));
  recover_stale_attempts(store, lease, out);
  PendingTrials to_run;
  int never_started = 0;
  for (std::int64_t row : store.campaign_trial_rows(campaign.id)) {
    std::optional<AttemptState> state = store.latest_state(row);
    if (state == AttemptState::Succeeded) continue;
    if (!state) ++never_started;
    to_run.rows.push_back(row);
  }
  to_run.trial = [&store, &to_run](std::size_t i) { return store.trial_spec(to_run.rows[i]); };
  fmt::print(out, "campaign {} ({}): {} trial(s) to run again ({} never started)\n", campaign.id, campaign.experiment,
             to_run.rows.size(), never_started);
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
                             measurement, options.db, out);
}

}  // namespace

CommandRunner register_rerun_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<RerunOptions>();
  auto* cmd = app.add_subcommand("rerun", "run again, as new attempts, the trials whose latest attempt failed");
  cmd->add_flag("--failed", options->failed, "select trials whose latest attempt did not succeed")->required();
  cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the latest)");
  cmd->add_option("--engine", options->engine, "mtengine binary (default: $MTENGINE, else beside mtrun)");
  add_quiet_options(*cmd, options->measurement);
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    become_child_subreaper();
    return rerun_failed(*options, out);
  };
}

}  // namespace mt
