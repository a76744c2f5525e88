#include "store/rerun_selection.h"

#include "store/campaign_measurement.h"

namespace mt {

TrialsToRerun trials_to_rerun(Database& db, const std::string& campaign_id, const RerunSelection& which) {
  // The reported attempt is chosen first and its verdict read after, so that a latest success
  // without recorded conditions is never passed over for an older one that has them.
  const std::string reported_verdict =
      has_measurement_schema(db)
          ? "(SELECT ac.verdict FROM attempt_conditions ac WHERE ac.attempt_id = (SELECT ok.id FROM attempts ok "
            "WHERE ok.trial_id = t.id AND ok.state = 'succeeded' ORDER BY ok.attempt DESC LIMIT 1))"
          : "NULL";
  auto s = db.prepare(
      "SELECT t.id, (SELECT a.state FROM attempts a WHERE a.trial_id = t.id ORDER BY a.attempt DESC LIMIT 1), " +
      reported_verdict + " FROM trials t WHERE t.campaign_id = ? ORDER BY t.ordinal");
  s.bind(1, campaign_id);
  TrialsToRerun out;
  while (s.step()) {
    const bool never_started = s.is_null(1);
    const bool failed = never_started || s.text(1) != "succeeded";
    const bool disturbed = !s.is_null(2) && s.text(2) == "disturbed";
    if (which.failed && failed) {
      ++out.failed;
      if (never_started) ++out.never_started;
    } else if (which.disturbed && disturbed) {
      ++out.disturbed;
    } else {
      continue;
    }
    out.rows.push_back(s.integer(0));
  }
  return out;
}

}  // namespace mt
