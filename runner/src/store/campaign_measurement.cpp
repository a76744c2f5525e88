#include "store/campaign_measurement.h"

#include <nlohmann/json.hpp>

namespace mt {

bool has_measurement_schema(Database& db) { return db.user_version() >= 6; }

CampaignMeasurement read_campaign_measurement(Database& db, const std::string& campaign_id) {
  CampaignMeasurement m;
  if (!has_measurement_schema(db)) return m;
  auto s = db.prepare("SELECT run_order, seed, measurement FROM campaigns WHERE id = ?");
  s.bind(1, campaign_id);
  if (!s.step()) return m;
  if (!s.is_null(0)) m.run_order = s.text(0);
  if (!s.is_null(1)) m.seed = std::uint64_t(s.integer(1));
  if (!s.is_null(2)) m.measurement = s.text(2);
  return m;
}

std::optional<ConditionsThresholds> recorded_conditions(const std::string& measurement_json) {
  const auto j = nlohmann::json::parse(measurement_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("conditions")) return std::nullopt;
  return thresholds_from_json(j["conditions"].dump());
}

}  // namespace mt
