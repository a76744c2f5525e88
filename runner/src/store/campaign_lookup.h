#pragma once
// Finding campaigns in a results database: by id or unique prefix, the latest, or all of one
// experiment. Every command that takes --campaign uses these, so they agree on what is meant.
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace mt {

// The campaign named by id or unique prefix; throws RunnerError (usage) when there is none or
// the prefix is ambiguous.
Campaign campaign_by_id(Database& db, const std::string& id);
// Whether `id` (in full) is a campaign of the database.
bool has_campaign(Database& db, const std::string& id);
// The campaign whose latest attempt started last (of those with none, the one created last; of
// those created in the same second, the one added last); throws RunnerError (usage) when there is
// none.
Campaign latest_campaign(Database& db);
// The same among the campaigns of one experiment: what a baseline of that experiment is compared
// with when no campaign is named (another experiment's latest run is no later version of it).
Campaign latest_campaign_of(Database& db, const std::string& experiment);
// Every campaign of an experiment, oldest first (those created in the same second in the order they
// were added); throws RunnerError (usage) when there is none, naming the experiments there are.
std::vector<Campaign> experiment_campaigns(Database& db, const std::string& experiment);
// The names of the experiments the database holds campaigns of, in name order.
std::vector<std::string> experiment_names(Database& db);
// `id` when given, else the latest.
Campaign select_campaign(Database& db, const std::optional<std::string>& id);

}  // namespace mt
