// mtrun baseline set NAME CAMPAIGN | list | delete NAME: named campaigns that later campaigns are
// compared with (`mtrun compare --baseline NAME`), kept in the results database.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "runner_error.h"
#include "store/baselines.h"
#include "store/campaign_lookup.h"
#include "store/store.h"
#include "store/store_reader.h"
#include "text_table.h"

namespace mt {
namespace {

struct BaselineOptions {
  std::filesystem::path db;
  std::string name;
  std::string campaign;
};

// Where `name` points now, if anywhere.
std::optional<Baseline> baseline_named(Database& db, const std::string& name) {
  for (auto& b : list_baselines(db)) {
    if (b.name == name) return std::move(b);
  }
  return std::nullopt;
}

// Setting and deleting check what they are given read-only first: a mistyped --db is named rather
// than created, and a refused request leaves an older database unmigrated.
int set_command(const BaselineOptions& options, std::ostream& out) {
  check_baseline_name(options.name);
  Campaign campaign;
  std::optional<Baseline> before;
  {
    auto db = open_store_read_only(options.db);
    campaign = campaign_by_id(*db, options.campaign);
    before = baseline_named(*db, options.name);
  }
  Store store(options.db);
  set_baseline(store.db(), options.name, campaign.id);
  fmt::print(out, "baseline {} is campaign {} of {} (created {})\n", options.name, campaign.id, campaign.experiment,
             campaign.created_at);
  // A name repointed is said, with where it pointed: a comparison with it now means another campaign.
  if (before && before->campaign_id != campaign.id) {
    fmt::print(out, "it pointed at campaign {} of {} (set {}) before\n", before->campaign_id, before->experiment,
               before->set_at);
  }
  return kExitOk;
}

int list_command(const BaselineOptions& options, std::ostream& out) {
  auto db = open_store_read_only(options.db);
  const auto baselines = list_baselines(*db);
  if (baselines.empty()) {
    out << "no baselines yet; set one with `mtrun baseline set NAME CAMPAIGN`\n";
    return kExitOk;
  }
  TextTable table({"name", "campaign", "experiment", "set at"});
  for (const auto& b : baselines) table.add_row({b.name, b.campaign_id, b.experiment, b.set_at});
  out << table.render();
  return kExitOk;
}

int delete_command(const BaselineOptions& options, std::ostream& out) {
  find_baseline(*open_store_read_only(options.db), options.name);
  Store store(options.db);
  delete_baseline(store.db(), options.name);
  fmt::print(out, "baseline {} deleted\n", options.name);
  return kExitOk;
}

}  // namespace

CommandRunner register_baseline_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<BaselineOptions>();
  auto* cmd = app.add_subcommand("baseline", "named campaigns to compare later ones with (compare --baseline NAME)");
  cmd->require_subcommand(1);
  auto* set = cmd->add_subcommand("set", "point NAME at a campaign (id or unique prefix), replacing where it pointed");
  set->add_option("NAME", options->name, "baseline name: letters, digits, '.', '_', '-'")->required();
  set->add_option("CAMPAIGN", options->campaign, "campaign id or unique prefix")->required();
  auto* list = cmd->add_subcommand("list", "every baseline with its campaign");
  auto* remove = cmd->add_subcommand("delete", "remove a baseline (its campaign stays)");
  remove->add_option("NAME", options->name, "baseline name")->required();
  return [options, &global, set, list](std::ostream& out) {
    options->db = global.db;
    if (set->parsed()) return set_command(*options, out);
    if (list->parsed()) return list_command(*options, out);
    return delete_command(*options, out);
  };
}

}  // namespace mt
