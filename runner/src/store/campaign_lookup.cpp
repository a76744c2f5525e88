#include "store/campaign_lookup.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/suggestion.h"
#include "runner_error.h"

namespace mt {

Campaign campaign_by_id(Database& db, const std::string& id) {
  // An empty id is a prefix of every campaign: a variable left unset, never a choice.
  if (id.empty()) throw RunnerError(kExitUsage, "the campaign id is empty (mtrun campaigns lists them)");
  // A prefix compared as text: LIKE would read '_' and '%' in it as wildcards, and ignore case.
  auto s =
      db.prepare(fmt::format("SELECT {} FROM campaigns c WHERE substr(c.id, 1, length(?1)) = ?1 "
                             "ORDER BY c.id = ?1 DESC, c.id LIMIT 3",
                             kCampaignColumns));
  s.bind(1, id);
  if (!s.step()) throw RunnerError(kExitUsage, fmt::format("no campaign '{}' in the database", id));
  Campaign first = campaign_from_row(s);
  if (first.id != id && s.step()) {
    const std::string second = s.text(0);
    throw RunnerError(kExitUsage, fmt::format("campaign prefix '{}' is ambiguous ({}, {}{}); give more characters", id,
                                              first.id, second, s.step() ? ", …" : ""));
  }
  return first;
}

namespace {

// Latest by activity: the campaign whose latest attempt started last, then by creation.
Campaign latest_where(Database& db, const std::string& where, const std::optional<std::string>& value,
                      const std::string& none) {
  auto s = db.prepare(
      fmt::format("SELECT {} FROM campaigns c {} ORDER BY (SELECT max(a.started_at) FROM attempts a JOIN trials t "
                  "ON t.id = a.trial_id WHERE t.campaign_id = c.id) DESC, c.created_at DESC, c.rowid DESC LIMIT 1",
                  kCampaignColumns, where));
  if (value) s.bind(1, *value);
  if (!s.step()) throw RunnerError(kExitUsage, none);
  return campaign_from_row(s);
}

}  // namespace

bool has_campaign(Database& db, const std::string& id) {
  auto s = db.prepare("SELECT 1 FROM campaigns WHERE id = ?");
  s.bind(1, id);
  return s.step();
}

Campaign latest_campaign(Database& db) {
  return latest_where(db, "", std::nullopt, "the database holds no campaign yet");
}

Campaign latest_campaign_of(Database& db, const std::string& experiment) {
  return latest_where(db, "WHERE c.experiment = ?", experiment,
                      fmt::format("the database holds no campaign of experiment '{}'", experiment));
}

std::vector<Campaign> experiment_campaigns(Database& db, const std::string& experiment) {
  auto s = db.prepare(fmt::format("SELECT {} FROM campaigns c WHERE c.experiment = ? ORDER BY c.created_at, c.rowid",
                                  kCampaignColumns));
  s.bind(1, experiment);
  std::vector<Campaign> out;
  while (s.step()) out.push_back(campaign_from_row(s));
  if (out.empty()) {
    const auto names = experiment_names(db);
    if (names.empty()) throw RunnerError(kExitUsage, "the database holds no campaign yet");
    // A few names are a hint; a long list is for `mtrun campaigns`.
    constexpr std::size_t kNamesShown = 8;
    const std::size_t shown = std::min(names.size(), kNamesShown);
    const std::string more =
        names.size() > shown ? fmt::format(" and {} more (`mtrun campaigns`)", names.size() - shown) : "";
    throw RunnerError(
        kExitUsage,
        fmt::format("no campaign of experiment '{}' in the database{}; it holds campaigns of: {}{}", experiment,
                    did_you_mean(experiment, names), fmt::join(names.begin(), names.begin() + shown, ", "), more));
  }
  return out;
}

std::vector<std::string> experiment_names(Database& db) {
  auto s = db.prepare("SELECT DISTINCT experiment FROM campaigns ORDER BY experiment");
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.text(0));
  return names;
}

Campaign select_campaign(Database& db, const std::optional<std::string>& id) {
  return id ? campaign_by_id(db, *id) : latest_campaign(db);
}

}  // namespace mt
