#pragma once
// Removing a campaign from the results database: every row that belongs to it, in one transaction,
// so the database holds all of it or none of it. Its run directories are the caller's to remove.
#include <cstdint>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

// What a campaign holds in the database.
struct CampaignRows {
  std::int64_t trials = 0;
  std::int64_t attempts = 0;
  std::int64_t rows = 0;  // in every table together, the campaign's own row included
};

// The tables that hold a campaign's rows, children before their parents: the order they are
// deleted in. Of the store's other tables, baselines name a campaign (one a baseline names is not
// removed) and leases hold the lease of whoever removes it, released when it is done.
const std::vector<std::string>& campaign_tables();

CampaignRows count_campaign_rows(Database& db, const std::string& campaign_id);

// The names of the baselines that point at the campaign.
std::vector<std::string> baselines_of(Database& db, const std::string& campaign_id);

// Deletes every row of the campaign in one immediate transaction and returns what was deleted.
// Throws RunnerError (usage) when a baseline points at it, naming the baselines; SqliteError when
// the database refuses (nothing is deleted then).
CampaignRows delete_campaign_rows(Database& db, const std::string& campaign_id);

}  // namespace mt
