#include "store/baselines.h"

#include <fmt/format.h>

#include "runner_error.h"
#include "store/store.h"

namespace mt {
namespace {

bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 100) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string known_names(Database& db) {
  std::string out;
  for (const auto& b : list_baselines(db)) out += (out.empty() ? "" : ", ") + b.name;
  return out.empty() ? "there are none; set one with `mtrun baseline set NAME CAMPAIGN`" : "there are: " + out;
}

}  // namespace

bool has_baseline_schema(Database& db) { return db.has_table("baselines"); }

std::vector<Baseline> list_baselines(Database& db) {
  std::vector<Baseline> out;
  if (!has_baseline_schema(db)) return out;
  auto s = db.prepare(
      "SELECT b.name, b.campaign_id, coalesce(c.experiment, ''), b.set_at FROM baselines b "
      "LEFT JOIN campaigns c ON c.id = b.campaign_id ORDER BY b.name");
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
  return out;
}

Baseline find_baseline(Database& db, const std::string& name) {
  for (auto& b : list_baselines(db)) {
    if (b.name == name) return b;
  }
  throw RunnerError(kExitUsage, fmt::format("no baseline '{}' in the database ({})", name, known_names(db)));
}

void check_baseline_name(const std::string& name) {
  if (plain_name(name)) return;
  throw RunnerError(kExitUsage, fmt::format("baseline name '{}' must be a plain word: letters, digits, '.', '_' or "
                                            "'-', at most 100 characters",
                                            name));
}

void set_baseline(Database& db, const std::string& name, const std::string& campaign_id) {
  check_baseline_name(name);
  db.prepare(
        "INSERT INTO baselines (name, campaign_id, set_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET campaign_id = excluded.campaign_id, set_at = excluded.set_at")
      .bind(1, name)
      .bind(2, campaign_id)
      .bind(3, utc_now())
      .run();
}

void delete_baseline(Database& db, const std::string& name) {
  find_baseline(db, name);
  db.prepare("DELETE FROM baselines WHERE name = ?").bind(1, name).run();
}

}  // namespace mt
