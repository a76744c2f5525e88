#include "experiment/measurement_rules.h"

#include <nlohmann/json.hpp>

namespace mt {

std::string thresholds_to_json(const ConditionsThresholds& t) {
  nlohmann::ordered_json j;
  j["max_foreign_cpu_pct"] = t.max_foreign_cpu_pct;
  j["max_steal_pct"] = t.max_steal_pct;
  j["max_calibration_drop_pct"] = t.max_calibration_drop_pct;
  j["max_memory_bandwidth_drop_pct"] = t.max_memory_bandwidth_drop_pct;
  j["max_latency_rise_pct"] = t.max_latency_rise_pct;
  j["max_core_round_trip_rise_pct"] = t.max_core_round_trip_rise_pct;
  j["max_cpu_pressure_pct"] = t.max_cpu_pressure_pct;
  j["bimodal_step_ratio"] = t.bimodal_step_ratio;
  j["bimodal_min_gap_ms"] = t.bimodal_min_gap_ms;
  j["sample_interval_s"] = t.sample_interval_s;
  j["keep_disturbed"] = t.keep_disturbed;
  j["settle_s"] = t.settle_s;
  j["wait_quiet_s"] = t.wait_quiet_s;
  return j.dump();
}

ConditionsThresholds thresholds_from_json(const std::string& text) {
  ConditionsThresholds t;
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return t;
  auto number = [&](const char* key, double& out) {
    if (j.contains(key) && j[key].is_number()) out = j[key].get<double>();
  };
  number("max_foreign_cpu_pct", t.max_foreign_cpu_pct);
  number("max_steal_pct", t.max_steal_pct);
  number("max_calibration_drop_pct", t.max_calibration_drop_pct);
  number("max_memory_bandwidth_drop_pct", t.max_memory_bandwidth_drop_pct);
  number("max_latency_rise_pct", t.max_latency_rise_pct);
  number("max_core_round_trip_rise_pct", t.max_core_round_trip_rise_pct);  // absent before it existed: 200
  number("max_cpu_pressure_pct", t.max_cpu_pressure_pct);
  number("bimodal_step_ratio", t.bimodal_step_ratio);
  number("bimodal_min_gap_ms", t.bimodal_min_gap_ms);
  number("sample_interval_s", t.sample_interval_s);
  number("settle_s", t.settle_s);  // absent from campaigns recorded before the keys existed: 0
  number("wait_quiet_s", t.wait_quiet_s);
  if (j.contains("keep_disturbed") && j["keep_disturbed"].is_boolean())
    t.keep_disturbed = j["keep_disturbed"].get<bool>();
  return t;
}

}  // namespace mt
