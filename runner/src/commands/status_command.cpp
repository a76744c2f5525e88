// mtrun status: what ran, what failed and why, for one campaign.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "run/adaptive_repeats.h"
#include "run/progress.h"
#include "run/summary.h"
#include "store/campaign_lookup.h"
#include "store/campaign_measurement.h"
#include "store/store_reader.h"
#include "table_cell.h"
#include "text_table.h"

namespace mt {

namespace {

struct StatusOptions {
  std::filesystem::path db;
  std::optional<std::string> campaign;  // default: the most recently run campaign
  bool provenance = false;
};

// One row per trial's latest attempt: the experiment's source (repository, commit, dirty), the build
// of the program it drove (revision, dirty), whether its provenance is complete and what it lacks.
void print_provenance(Database& db, const std::string& campaign_id, std::ostream& out) {
  // Databases before schema version 8 do not record the repository or the build's dirty state.
  const bool facts = db.user_version() >= 8;
  auto s = db.prepare(fmt::format(R"sql(
    SELECT t.identity, a.attempt, p.complete, {}, p.source_commit, p.tree_dirty, p.build_revision, {},
           CASE WHEN p.bare_metal THEN 'bare metal ' || p.engine_binary_hash ELSE p.image_ref || ' ' || p.image_id END,
           p.hosts, p.missing_fields
    FROM trials t JOIN latest_attempts a ON a.trial_id = t.id JOIN provenance p ON p.attempt_id = a.id
    WHERE t.campaign_id = ? ORDER BY t.ordinal)sql",
                                  facts ? "p.source_repository" : "NULL", facts ? "p.build_tree_dirty" : "NULL"));
  s.bind(1, campaign_id);
  TextTable table({"trial", "att", "complete", "repository", "source", "dirty", "build", "build dirty",
                   "image / binary", "hosts", "missing"});
  auto yes_no = [&](int column) { return s.is_null(column) ? std::string("?") : s.integer(column) ? "yes" : "no"; };
  while (s.step()) {
    std::string repository = s.is_null(3) ? "?" : s.text(3).empty() ? "none" : s.text(3);
    table.add_row({s.text(0).substr(0, 12), s.text(1), s.integer(2) ? "yes" : "NO", repository, s.text(4).substr(0, 12),
                   yes_no(5), s.text(6).substr(0, 12), yes_no(7), s.text(8), s.text(9), s.text(10)});
  }
  out << "\n" << (table.empty() ? std::string("no provenance recorded yet\n") : table.render());
}

int print_status(const StatusOptions& options, std::ostream& out) {
  auto db = open_store_read_only(options.db);
  Campaign campaign = select_campaign(*db, options.campaign);
  fmt::print(out, "campaign {}  experiment {}  revision {}  created {}\n  file {}\n\n", campaign.id,
             campaign.experiment, short_revision(campaign.source_revision), campaign.created_at,
             campaign.experiment_file);
  auto rows = campaign_trials(*db, campaign.id);
  out << render_trial_table(rows);
  int done = 0, succeeded = 0, disturbed = 0;
  for (const auto& r : rows) {
    if (r.state && *r.state != "running") ++done;
    if (r.state != std::string("succeeded")) continue;
    ++succeeded;
    if (r.verdict == std::string("disturbed")) ++disturbed;
  }
  fmt::print(out, "\n{} trials: {} succeeded, {} not succeeded, {} not finished\n", rows.size(), succeeded,
             done - succeeded, rows.size() - done);
  if (disturbed > 0) {
    fmt::print(out, "{} of the succeeded ran on a disturbed machine: {}\n", disturbed,
               keeps_disturbed(*db, campaign.id)
                   ? "kept in means (conditions: keep_disturbed)"
                   : "left out of means; " + rerun_disturbed_advice(disturbed_attempts_waited(*db, rows)));
  }
  // Where each adaptive configuration stands against its target (while it runs, more rounds follow).
  out << adaptive_outcome_line(*db, campaign.id,
                               repeat_policies_from_json(read_campaign_measurement(*db, campaign.id).measurement));
  for (const auto& r : rows) {  // what is in flight now, and where to follow it
    if (r.state != std::string("running")) continue;
    const std::string what = r.queued ? fmt::format("queued: its job waits in the scheduler's queue ({})", *r.queued)
                                      : fmt::format("running for {}", format_duration(r.running_s.value_or(0)));
    fmt::print(out, "  {} {}\n    log: {}\n", r.identity.substr(0, 12), what, r.log_path);
  }
  for (const auto& r : rows) {
    if (!r.state || *r.state == "succeeded" || *r.state == "running") continue;
    fmt::print(out, "  {} {}: {}\n    log: {}\n", r.identity.substr(0, 12), *r.state,
               escape_control_characters(r.error_reason), r.log_path);
  }
  if (std::string stages = render_chain_stages(*db, rows); !stages.empty()) {
    fmt::print(out,
               "\nstages of each chain's latest attempt (a chain succeeds when every stage met its expectation):\n{}",
               stages);
  }
  if (std::string relaunches = render_relaunches(*db, rows); !relaunches.empty()) {
    fmt::print(out, "\njobs relaunched from their latest checkpoint (restart:), launch by launch:\n{}", relaunches);
  }
  if (options.provenance) print_provenance(*db, campaign.id, out);
  return 0;
}

}  // namespace

CommandRunner register_status_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "what ran, what failed and why");
  cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the latest)");
  cmd->add_flag("--provenance", options->provenance, "also show each trial's provenance and what it lacks");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return print_status(*options, out);
  };
}

}  // namespace mt
