#pragma once
// Every campaign in a results database, one summary each: what `mtrun campaigns` lists.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

struct CampaignSummary {
  std::string id;
  std::string experiment;
  std::string source_revision;
  std::string created_at;
  std::optional<std::string> started_at;   // the first attempt's start
  std::optional<std::string> finished_at;  // the last attempt's end, once nothing runs
  std::int64_t trials = 0;
  std::int64_t succeeded = 0;  // by each trial's latest attempt
  // failed, timed out, crashed, not launched, interrupted (or left running by a runner that is gone)
  std::int64_t failed = 0;
  std::int64_t running = 0;  // with a live runner
  std::int64_t not_run = 0;  // no attempt yet
  // "running", "succeeded" (every trial), "failed" (every trial ran, some did not succeed),
  // "incomplete" (some trials have not run to an end), "not started".
  std::string state() const;
};

// Oldest first (by first start, else creation); only `experiment`'s when given. `now` (Unix time)
// judges whether a runner that left attempts running still lives.
std::vector<CampaignSummary> list_campaigns(Database& db, const std::optional<std::string>& experiment,
                                            std::int64_t now);

}  // namespace mt
