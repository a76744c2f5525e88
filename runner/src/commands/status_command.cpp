// mtrun status: what ran, what failed and why, for one campaign.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "runner_error.h"
#include "store.h"
#include "summary.h"

namespace mt {

namespace {

struct StatusOptions {
  std::filesystem::path db;
  std::optional<std::string> campaign;  // default: the most recently run campaign
};

int print_status(const StatusOptions& options, std::ostream& out) {
  if (!std::filesystem::exists(options.db)) {
    throw RunnerError(kExitUsage, fmt::format("no database at {} (run an experiment first, or pass --db)",
                                              options.db.string()));
  }
  Store store(options.db);
  std::optional<Campaign> campaign =
      options.campaign ? store.find_campaign(*options.campaign) : store.latest_campaign();
  if (!campaign) {
    throw RunnerError(kExitUsage, options.campaign ? fmt::format("no campaign '{}' in {}", *options.campaign,
                                                                 options.db.string())
                                                   : fmt::format("{} holds no campaign yet", options.db.string()));
  }
  fmt::print(out, "campaign {}  experiment {}  revision {}  created {}\n  file {}\n\n", campaign->id,
             campaign->experiment, campaign->source_revision.substr(0, 12), campaign->created_at,
             campaign->experiment_file);
  auto rows = campaign_trials(store, campaign->id);
  out << render_trial_table(rows);
  int done = 0, succeeded = 0;
  for (const auto& r : rows) {
    if (r.state && *r.state != "running") ++done;
    if (r.state == std::string("succeeded")) ++succeeded;
  }
  fmt::print(out, "\n{} trials: {} succeeded, {} not succeeded, {} not finished\n", rows.size(), succeeded,
             done - succeeded, rows.size() - done);
  for (const auto& r : rows) {
    if (!r.state || *r.state == "succeeded" || *r.state == "running") continue;
    fmt::print(out, "  {} {}: {}\n    log: {}\n", r.identity.substr(0, 12), *r.state, r.error_reason, r.log_path);
  }
  return 0;
}

}  // namespace

CommandRunner register_status_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "what ran, what failed and why");
  cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the latest)");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return print_status(*options, out);
  };
}

}  // namespace mt
