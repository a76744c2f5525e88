#include "store/trial_lookup.h"

#include <fmt/format.h>

#include "runner_error.h"
#include "store/campaign_lookup.h"

namespace mt {

TrialRef find_trial(Database& db, const std::string& prefix, const std::optional<std::string>& campaign) {
  if (prefix.empty()) throw RunnerError(kExitUsage, "give a trial id (as status prints it) or a prefix of one");
  std::optional<std::string> campaign_id;
  if (campaign) campaign_id = campaign_by_id(db, *campaign).id;
  // Latest run first: by the start of the trial's latest attempt, then by the campaign's creation.
  auto s = db.prepare(R"sql(
    SELECT t.id, t.identity, t.campaign_id FROM trials t JOIN campaigns c ON c.id = t.campaign_id
    WHERE substr(t.identity, 1, length(?1)) = ?1 AND (?2 IS NULL OR t.campaign_id = ?2)
    ORDER BY (SELECT max(a.started_at) FROM attempts a WHERE a.trial_id = t.id) DESC, c.created_at DESC, t.id DESC)sql");
  s.bind(1, prefix).bind(2, campaign_id);
  std::optional<TrialRef> found;
  while (s.step()) {
    if (!found) {
      found = TrialRef{s.integer(0), s.text(1), s.text(2), 0};
    } else if (const std::string second = s.text(1); second != found->identity) {
      bool more = false;  // a third trial, named only as "…"
      while (!more && s.step()) more = s.text(1) != found->identity && s.text(1) != second;
      throw RunnerError(kExitUsage,
                        fmt::format("trial prefix '{}' is ambiguous ({}, {}{}); give more characters", prefix,
                                    found->identity.substr(0, 16), second.substr(0, 16), more ? ", …" : ""));
    } else {
      ++found->other_campaigns;
    }
  }
  if (!found) {
    throw RunnerError(kExitUsage, campaign_id ? fmt::format("no trial '{}' in campaign {}", prefix, *campaign_id)
                                              : fmt::format("no trial '{}' in the database", prefix));
  }
  return *found;
}

}  // namespace mt
