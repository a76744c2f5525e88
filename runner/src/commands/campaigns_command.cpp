// mtrun campaigns: every campaign in the database, one line each — what ran, when, how it ended,
// at which revision — as a table, CSV or JSON (the formats of `mtrun query`).
#include <ctime>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/campaign_selection.h"
#include "commands/commands.h"
#include "commands/query_output.h"
#include "commands/run_files.h"
#include "store/campaign_lookup.h"
#include "store/campaign_list.h"
#include "store/store.h"
#include "store/store_reader.h"

namespace mt {
namespace {

struct CampaignsOptions {
  std::filesystem::path db;
  std::optional<std::string> experiment;
  QueryFormat format = QueryFormat::Table;
};

QueryCell optional_text(const std::optional<std::string>& text) {
  return text ? QueryCell::of(*text) : QueryCell::null();
}

int list(const CampaignsOptions& options, std::ostream& out) {
  auto db = open_store_read_only(options.db);
  std::optional<std::string> experiment;
  if (options.experiment) {
    experiment = experiment_named(*db, *options.experiment);
    experiment_campaigns(*db, *experiment);  // an experiment with no campaign is refused, as report refuses it
  }
  const auto campaigns = list_campaigns(*db, experiment, std::int64_t(std::time(nullptr)));
  const bool table = options.format == QueryFormat::Table;
  if (table && campaigns.empty()) {
    out << "no campaign in the database yet\n";
    return 0;
  }
  RowList rows({"campaign", "experiment", "state", "trials", "succeeded", "failed", "unfinished", "started", "finished",
                "revision", "run_files_mib"});
  // unfinished: trials whose latest attempt has not ended (running under a live runner, or never run); one
  // left running by a runner that is gone was interrupted, and counts as failed.
  // run_files_mib: what its run directory holds on disk (`mtrun delete` removes it); null: none.
  for (const auto& c : campaigns) {
    const auto bytes = run_files_bytes(campaign_file_dirs(*db, options.db, c.id));
    const double mib = bytes ? double(*bytes) / (1024.0 * 1024.0) : 0;
    // A table shows a revision as status does (short_revision); CSV and JSON keep all of it.
    rows.add({QueryCell::of(c.id), QueryCell::of(c.experiment), QueryCell::of(c.state()), QueryCell::of(c.trials),
              QueryCell::of(c.succeeded), QueryCell::of(c.failed), QueryCell::of(c.not_run + c.running),
              optional_text(c.started_at), optional_text(c.finished_at),
              QueryCell::of(table ? short_revision(c.source_revision) : c.source_revision),
              bytes ? QueryCell::of_real(mib, fmt::format("{:.1f}", mib)) : QueryCell::null()});
  }
  write_rows(rows, options.format, out);
  return 0;
}

}  // namespace

CommandRunner register_campaigns_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<CampaignsOptions>();
  auto* cmd = app.add_subcommand("campaigns",
                                 "list the campaigns in the database: state, trial counts, when, revision, the "
                                 "size of their run files");
  cmd->add_option("--experiment", options->experiment, "only this experiment's campaigns (its name or its file)");
  auto* csv = cmd->add_flag("--csv", "comma-separated output");
  auto* json = cmd->add_flag("--json", "JSON array of row objects");
  csv->excludes(json);
  return [options, csv, json, &global](std::ostream& out) {
    options->db = global.db;
    options->format = *csv ? QueryFormat::Csv : *json ? QueryFormat::Json : QueryFormat::Table;
    return list(*options, out);
  };
}

}  // namespace mt
