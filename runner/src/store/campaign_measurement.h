#pragma once
// How a campaign ran and is judged, as recorded with it (schema version 6): its run order and seed,
// and the measurement rules (conditions thresholds, adaptive repeats). Databases from before have
// none of it, and are read as they were: interleaved, with the default rules.
#include <optional>
#include <string>

#include "experiment/measurement_rules.h"
#include "store/sqlite_db.h"

namespace mt {

struct CampaignMeasurement {
  std::string run_order;  // "" when not recorded
  std::optional<std::uint64_t> seed;
  std::string measurement;  // JSON text; "" when not recorded
};

CampaignMeasurement read_campaign_measurement(Database& db, const std::string& campaign_id);

// The conditions thresholds a campaign's measurement JSON records (its experiment's `conditions:`),
// nullopt where it records none.
std::optional<ConditionsThresholds> recorded_conditions(const std::string& measurement_json);

// True when the database has the tables and columns of schema version 6 (conditions, orders).
bool has_measurement_schema(Database& db);

}  // namespace mt
