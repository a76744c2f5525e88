#pragma once
// Finding one trial by its identity or a prefix of it, as `status` and reports print it (12
// characters), optionally within one campaign.
#include <cstdint>
#include <optional>
#include <string>

#include "store/sqlite_db.h"

namespace mt {

struct TrialRef {
  std::int64_t row = 0;  // trials.id
  std::string identity;
  std::string campaign_id;
  int other_campaigns = 0;  // campaigns that hold the same trial too (one experiment run at several revisions)
};

// The trial `prefix` names. Within `campaign` (id or prefix) when given; else, of the campaigns
// holding that trial, the one that ran it last. Throws RunnerError (usage) when no trial matches
// or the prefix fits several trials.
TrialRef find_trial(Database& db, const std::string& prefix, const std::optional<std::string>& campaign);

}  // namespace mt
