#include "store/campaign_list.h"

#include "store/lease.h"

namespace mt {

std::string CampaignSummary::state() const {
  if (running > 0) return "running";
  if (!started_at) return "not started";
  if (not_run > 0) return "incomplete";
  return failed > 0 ? "failed" : "succeeded";
}

std::vector<CampaignSummary> list_campaigns(Database& db, const std::optional<std::string>& experiment,
                                            std::int64_t now) {
  auto s = db.prepare(R"sql(
    SELECT c.id, c.experiment, c.source_revision, c.created_at,
           (SELECT min(x.started_at) FROM attempts x JOIN trials y ON y.id = x.trial_id WHERE y.campaign_id = c.id) AS started,
           (SELECT max(x.finished_at) FROM attempts x JOIN trials y ON y.id = x.trial_id WHERE y.campaign_id = c.id),
           count(t.id),
           coalesce(sum(a.state = 'succeeded'), 0),
           coalesce(sum(a.state NOT IN ('succeeded', 'running')), 0),
           coalesce(sum(a.id IS NULL AND t.id IS NOT NULL), 0)
    FROM campaigns c
    LEFT JOIN trials t ON t.campaign_id = c.id
    LEFT JOIN latest_attempts a ON a.trial_id = t.id
    WHERE ?1 IS NULL OR c.experiment = ?1
    GROUP BY c.id
    ORDER BY coalesce(started, c.created_at), c.created_at, c.id)sql");
  s.bind(1, experiment);
  std::vector<CampaignSummary> out;
  while (s.step()) {
    CampaignSummary c;
    c.id = s.text(0);
    c.experiment = s.text(1);
    c.source_revision = s.text(2);
    c.created_at = s.text(3);
    if (!s.is_null(4)) c.started_at = s.text(4);
    if (!s.is_null(5)) c.finished_at = s.text(5);
    c.trials = s.integer(6);
    c.succeeded = s.integer(7);
    c.failed = s.integer(8);
    c.not_run = s.integer(9);
    out.push_back(std::move(c));
  }
  // Attempts recorded as running: running only while their runner lives.
  auto running = db.prepare(R"sql(
    SELECT a.runner_host, a.runner_pid FROM latest_attempts a JOIN trials t ON t.id = a.trial_id
    WHERE t.campaign_id = ? AND a.state = 'running')sql");
  for (auto& c : out) {
    running.reset();
    running.bind(1, c.id);
    while (running.step()) {
      // One whose runner is gone is interrupted, as status says: it ended without success.
      if (attempt_runner_alive(db, c.id, running.text(0), running.integer(1), now)) ++c.running;
      else ++c.failed;
    }
    if (c.running > 0) c.finished_at.reset();
  }
  return out;
}

}  // namespace mt
