#pragma once
// Which of a campaign's trials `mtrun rerun` runs again: those whose latest attempt did not succeed
// (--failed), and those whose reported number ran on a disturbed machine (--disturbed): the
// attempt reports use, the latest that succeeded, was judged disturbed, so every report leaves it
// out of its means.
#include <cstdint>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

struct RerunSelection {
  bool failed = false;
  bool disturbed = false;
};

struct TrialsToRerun {
  std::vector<std::int64_t> rows;  // trial rows in the campaign's order
  int failed = 0;                  // latest attempt did not succeed (never_started included)
  int never_started = 0;           // no attempt at all (a runner stopped before it)
  int disturbed = 0;               // reported attempt disturbed (and not counted under failed)
};

// A trial both failed and disturbed (it succeeded on a disturbed machine, then failed) is counted
// once, as failed, where both are selected.
TrialsToRerun trials_to_rerun(Database& db, const std::string& campaign_id, const RerunSelection& which);

}  // namespace mt
