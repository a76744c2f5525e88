#include "store/alike_campaign.h"

namespace mt {

std::optional<AlikeCampaign> latest_alike_campaign(Database& db, const Campaign& campaign) {
  auto s = db.prepare(
      "SELECT id FROM campaigns WHERE experiment = ? AND plan_hash = ? AND launcher = ? AND source_revision = ? "
      "AND id <> ? ORDER BY created_at DESC, rowid DESC LIMIT 1");
  s.bind(1, campaign.experiment)
      .bind(2, campaign.plan_hash)
      .bind(3, campaign.launcher)
      .bind(4, campaign.source_revision)
      .bind(5, campaign.id);
  if (!s.step()) return std::nullopt;
  AlikeCampaign alike{s.text(0), {}};
  auto programs = db.prepare(
      "SELECT DISTINCT CASE WHEN p.bare_metal THEN p.engine_binary_hash ELSE p.image_id END AS program "
      "FROM provenance p JOIN attempts a ON a.id = p.attempt_id JOIN trials t ON t.id = a.trial_id "
      "WHERE t.campaign_id = ? AND coalesce(program, '') <> '' ORDER BY program");
  programs.bind(1, alike.id);
  while (programs.step()) alike.programs.push_back(programs.text(0));
  return alike;
}

}  // namespace mt
