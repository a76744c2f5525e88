#pragma once
// Named baselines (schema version 7): a name that points at a campaign, so that later campaigns are
// compared with it by name (`mtrun compare --baseline NAME`). Reading works on older databases,
// which simply have none; setting and deleting need a Store (it migrates the file first).
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

struct Baseline {
  std::string name;
  std::string campaign_id;
  std::string experiment;  // the campaign's
  std::string set_at;
};

// True when the database has the baselines table (schema version 7).
bool has_baseline_schema(Database& db);

// Every baseline, by name; none on a database from before baselines.
std::vector<Baseline> list_baselines(Database& db);

// The baseline called `name`; throws RunnerError (usage) when there is none, listing those there are.
Baseline find_baseline(Database& db, const std::string& name);

// Throws RunnerError (usage) for a name that is not a plain word (letters, digits, '.', '_', '-').
void check_baseline_name(const std::string& name);

// Points `name` at `campaign_id` (a campaign of the database), replacing where it pointed before.
// Throws as check_baseline_name does.
void set_baseline(Database& db, const std::string& name, const std::string& campaign_id);

// Removes `name`; throws RunnerError (usage) when there is none.
void delete_baseline(Database& db, const std::string& name);

}  // namespace mt
