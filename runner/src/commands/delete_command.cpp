// mtrun delete CAMPAIGN --yes: removes a campaign from the results database, every row of it in one
// transaction, then its run directories (runs/<database>/<campaign>/ beside it). --dry-run says
// what would go. A campaign a runner is running, or a baseline points at, is refused. The run
// directory of a campaign no longer in the database (kept, or left by a stopped delete) is removed
// the same way.
#include <ctime>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "commands/campaign_selection.h"
#include "commands/commands.h"
#include "commands/run_files.h"
#include "runner_error.h"
#include "store/campaign_lookup.h"
#include "store/campaign_removal.h"
#include "store/lease.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_reader.h"

namespace mt {
namespace {

struct DeleteOptions {
  std::filesystem::path db;
  std::string campaign;
  bool yes = false;
  bool dry_run = false;
  bool keep_files = false;
  bool vacuum = false;
};

// Rewrites the database without the pages the deleted rows left free (SQLite keeps them for reuse
// otherwise, so the file does not shrink). Other connections wait while it runs.
void vacuum_database(Store& store, const std::filesystem::path& db, std::ostream& out) {
  std::error_code ec;
  const auto before = std::filesystem::file_size(db, ec);
  try {
    store.db().exec("VACUUM");
    store.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (const SqliteError& e) {
    throw RunnerError(kExitFailure, fmt::format("the campaign is deleted, but {} could not be vacuumed ({}): it keeps "
                                                "its size until `sqlite3 {} VACUUM` succeeds",
                                                db.string(), e.what(), db.string()));
  }
  const auto after = std::filesystem::file_size(db, ec);
  if (!ec) {
    fmt::print(out, "vacuumed {}: {:.1f} MiB -> {:.1f} MiB\n", db.string(), double(before) / (1024.0 * 1024.0),
               double(after) / (1024.0 * 1024.0));
  }
}

// Removes `dirs` (run directories), or throws RunnerError naming the one that stayed.
void remove_run_directories(const std::vector<std::filesystem::path>& dirs, const std::string& campaign_id,
                            const char* state) {
  for (const auto& runs : dirs) {
    std::error_code ec;
    if (!std::filesystem::exists(runs, ec)) continue;
    std::filesystem::remove_all(runs, ec);
    if (ec) {
      throw RunnerError(kExitWrite, fmt::format("campaign {} is {}, but its run directory {} could not be removed "
                                                "({}): remove it by hand",
                                                campaign_id, state, runs.string(), ec.message()));
    }
  }
}

// A full campaign id (12 hex digits), as run directories are named.
bool full_campaign_id(const std::string& id) {
  return id.size() == 12 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A run directory whose campaign is no longer in the database: one kept with --keep-files, or left
// by a delete stopped after its rows went. Removed with --yes, like a campaign's.
int delete_orphan_directory(Store& store, const DeleteOptions& options, const std::filesystem::path& runs,
                            std::ostream& out) {
  // A runner starting the campaign again holds its lease before it records it and writes here.
  CampaignLease lease(store.db(), options.campaign, RunnerId::self(), std::time(nullptr));
  const std::string files = run_files_text({runs}, runs);
  remove_run_directories({runs}, options.campaign, "not in the database");
  fmt::print(out, "campaign {} is not in the database; removed its {}\n", options.campaign, files);
  return kExitOk;
}

// The fewest characters of a campaign's id `delete` takes: one or two match a campaign by chance.
constexpr std::size_t kShortestDeletePrefix = 4;

// What `delete` is about: a campaign in the database, or else (nullopt) the run directory of one
// that is no longer there. Throws RunnerError (usage) when it is neither.
std::optional<Campaign> campaign_to_delete(Database& db, const DeleteOptions& options) {
  try {
    return campaign_by_id(db, options.campaign);
  } catch (const RunnerError&) {
    std::error_code ec;
    const bool orphan = full_campaign_id(options.campaign) && !options.keep_files &&
                        std::filesystem::is_directory(campaign_runs_dir(options.db, options.campaign), ec);
    if (!orphan) throw;
    return std::nullopt;
  }
}

std::string campaign_words(const Campaign& campaign) {
  return fmt::format("campaign {} of {} (created {}, revision {})", campaign.id, campaign.experiment,
                     campaign.created_at, short_revision(campaign.source_revision));
}

// "and its run directory …", "and no run directory (… does not exist)"
std::string its_files_text(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& runs) {
  return (dirs.empty() ? "" : "its ") + run_files_text(dirs, runs);
}

// Without --yes, or with --dry-run: what would go and what would refuse it, read without writing
// (a preview neither needs write access nor migrates an older database).
int preview_delete(const DeleteOptions& options, std::ostream& out) {
  auto db = open_store_read_only(options.db);
  const std::optional<Campaign> campaign = campaign_to_delete(*db, options);
  if (!campaign) {
    const std::filesystem::path runs = campaign_runs_dir(options.db, options.campaign);
    fmt::print(out, "campaign {} is not in the database, but its {} is: --yes removes it\n", options.campaign,
               run_files_text({runs}, runs));
    if (options.dry_run) return kExitOk;
    throw RunnerError(kExitUsage, fmt::format("nothing deleted: add --yes to remove {}", runs.string()));
  }
  const std::vector<std::filesystem::path> dirs = campaign_file_dirs(*db, options.db, campaign->id);
  const CampaignRows rows = count_campaign_rows(*db, campaign->id);
  fmt::print(out, "would delete {}: {} trials, {} attempts, {} rows in all, {}\n", campaign_words(*campaign),
             rows.trials, rows.attempts, rows.rows,
             options.keep_files ? "but not its run directory"
                                : "and " + its_files_text(dirs, campaign_runs_dir(options.db, campaign->id)));
  if (const auto names = baselines_of(*db, campaign->id); !names.empty())
    fmt::print(out, "but baseline {} points at it: it would be refused\n", fmt::join(names, ", "));
  if (const auto held = read_lease(*db, campaign->id); held && held->live(this_host(), std::time(nullptr))) {
    fmt::print(out, "but mtrun (pid {} on {}) is running it: it would be refused\n", held->holder.pid,
               held->holder.host);
  }
  if (options.dry_run) return kExitOk;
  throw RunnerError(kExitUsage, fmt::format("nothing deleted: add --yes to delete campaign {}", campaign->id));
}

int delete_campaign(const DeleteOptions& options, std::ostream& out) {
  if (options.campaign.size() < kShortestDeletePrefix) {
    throw RunnerError(kExitUsage, fmt::format("delete '{}': give at least {} characters of the campaign's id (mtrun "
                                              "campaigns lists them)",
                                              options.campaign, kShortestDeletePrefix));
  }
  require_database(options.db);
  if (options.dry_run || !options.yes) return preview_delete(options, out);
  Store store(options.db);
  const std::optional<Campaign> campaign = campaign_to_delete(store.db(), options);
  if (!campaign) return delete_orphan_directory(store, options, campaign_runs_dir(options.db, options.campaign), out);
  const std::vector<std::filesystem::path> dirs = campaign_file_dirs(store.db(), options.db, campaign->id);
  const std::string its_files = its_files_text(dirs, campaign_runs_dir(options.db, campaign->id));
  // Held until the files are gone: no runner is running the campaign now, and none starts it again
  // (the same experiment at the same revision is the same campaign) while its directory is removed.
  CampaignLease lease(store.db(), campaign->id, RunnerId::self(), std::time(nullptr));
  const CampaignRows rows = delete_campaign_rows(store.db(), campaign->id);
  fmt::print(out, "deleted {}: {} trials, {} attempts, {} rows in all\n", campaign_words(*campaign), rows.trials,
             rows.attempts, rows.rows);
  if (dirs.empty()) {
    fmt::print(out, "it had {}\n", its_files);
  } else if (options.keep_files) {
    fmt::print(out, "kept {}\n", its_files);
  } else {
    remove_run_directories(dirs, campaign->id, "deleted from the database");
    fmt::print(out, "removed {}\n", its_files);
  }
  // Last: a tidy-up of the file, which a failure leaves as it was, with the campaign gone.
  if (options.vacuum) vacuum_database(store, options.db, out);
  return kExitOk;
}

}  // namespace

CommandRunner register_delete_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<DeleteOptions>();
  auto* cmd = app.add_subcommand(
      "delete", "remove a campaign from the database with its run directory (--yes; --dry-run shows what would go)");
  cmd->add_option("CAMPAIGN", options->campaign, "campaign id or unique prefix (mtrun campaigns lists them)")
      ->required();
  cmd->add_flag("--yes", options->yes, "delete it: without this flag nothing is deleted");
  cmd->add_flag("--dry-run", options->dry_run, "say what would be deleted, and delete nothing");
  cmd->add_flag("--keep-files", options->keep_files, "keep its run directory (logs, results, traces) on disk");
  cmd->add_flag("--vacuum", options->vacuum,
                "then shrink the database file by what the campaign held (SQLite's VACUUM; other runners wait)");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return delete_campaign(*options, out);
  };
}

}  // namespace mt
