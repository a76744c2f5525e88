#include "store/campaign_removal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner_error.h"

namespace mt {
namespace {

// The campaign's rows of each table, as a condition on that table's rows (?1: the campaign's id).
constexpr const char* kOfTrials = "trial_id IN (SELECT id FROM trials WHERE campaign_id = ?1)";
constexpr const char* kOfAttempts =
    "attempt_id IN (SELECT a.id FROM attempts a JOIN trials t ON t.id = a.trial_id WHERE t.campaign_id = ?1)";

struct TableRows {
  const char* table;
  const char* where;
};

// Children before parents: launches name stages, everything below attempts names an attempt.
constexpr TableRows kCampaignRows[] = {
    {"launches", kOfAttempts},
    {"stages", kOfAttempts},
    {"result_rows", kOfAttempts},
    {"attempt_files", kOfAttempts},
    {"attempt_conditions", kOfAttempts},
    {"provenance", kOfAttempts},
    {"step_metrics", kOfAttempts},
    {"metrics", kOfAttempts},
    {"attempts", kOfTrials},
    {"trials", "campaign_id = ?1"},
    {"campaigns", "id = ?1"},
};

std::int64_t count_where(Database& db, const TableRows& t, const std::string& campaign_id) {
  if (!db.has_table(t.table)) return 0;  // a database from before the table existed
  auto s = db.prepare(fmt::format("SELECT count(*) FROM {} WHERE {}", t.table, t.where));
  s.bind(1, campaign_id);
  return s.step() ? s.integer(0) : 0;
}

}  // namespace

CampaignRows count_campaign_rows(Database& db, const std::string& campaign_id) {
  CampaignRows out;
  for (const auto& t : kCampaignRows) {
    const std::int64_t n = count_where(db, t, campaign_id);
    out.rows += n;
    if (t.table == std::string("trials")) out.trials = n;
    if (t.table == std::string("attempts")) out.attempts = n;
  }
  return out;
}

const std::vector<std::string>& campaign_tables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& t : kCampaignRows) out.emplace_back(t.table);
    return out;
  }();
  return names;
}

std::vector<std::string> baselines_of(Database& db, const std::string& campaign_id) {
  std::vector<std::string> out;
  if (!db.has_table("baselines")) return out;
  auto s = db.prepare("SELECT name FROM baselines WHERE campaign_id = ? ORDER BY name");
  s.bind(1, campaign_id);
  while (s.step()) out.push_back(s.text(0));
  return out;
}

CampaignRows delete_campaign_rows(Database& db, const std::string& campaign_id) {
  Transaction transaction(db);
  // Checked inside the transaction: no baseline can be set on it between the check and the delete.
  if (const auto names = baselines_of(db, campaign_id); !names.empty()) {
    throw RunnerError(kExitUsage,
                      fmt::format("campaign {} is what baseline {} points at: `mtrun baseline delete NAME` first, "
                                  "or point it at another campaign (`mtrun baseline set NAME CAMPAIGN`)",
                                  campaign_id, fmt::join(names, ", ")));
  }
  CampaignRows rows;
  for (const auto& t : kCampaignRows) {
    if (!db.has_table(t.table)) continue;
    auto s = db.prepare(fmt::format("DELETE FROM {} WHERE {}", t.table, t.where));
    s.bind(1, campaign_id);
    s.run();
    rows.rows += db.changes();
    if (t.table == std::string("trials")) rows.trials = db.changes();
    if (t.table == std::string("attempts")) rows.attempts = db.changes();
  }
  transaction.commit();
  return rows;
}

}  // namespace mt
