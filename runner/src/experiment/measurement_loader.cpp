#include "experiment/measurement_loader.h"

#include <limits>

#include <fmt/format.h>

namespace mt {
namespace {

const std::vector<std::string> kConditionKeys = {"max_foreign_cpu_pct",
                                                 "max_steal_pct",
                                                 "max_calibration_drop_pct",
                                                 "max_memory_bandwidth_drop_pct",
                                                 "max_latency_rise_pct",
                                                 "max_core_round_trip_rise_pct",
                                                 "max_cpu_pressure_pct",
                                                 "bimodal_step_ratio",
                                                 "bimodal_min_gap_ms",
                                                 "sample_interval_s",
                                                 "keep_disturbed",
                                                 "settle_s",
                                                 "wait_quiet_s"};
const std::vector<std::string> kRepeatKeys = {"min", "max", "target_ci_pct"};

void read_number(YamlReader& r, const YAML::Node& node, const char* key, double minimum, double& out) {
  if (!node[key]) return;
  if (auto v = r.number(node[key], fmt::format("conditions {}", key), minimum)) out = *v;
}

}  // namespace

void read_conditions(YamlReader& r, const YAML::Node& node, ConditionsThresholds& out) {
  if (!r.check_map(node, "conditions", kConditionKeys)) return;
  read_number(r, node, "max_foreign_cpu_pct", 0, out.max_foreign_cpu_pct);
  read_number(r, node, "max_steal_pct", 0, out.max_steal_pct);
  read_number(r, node, "max_calibration_drop_pct", 0, out.max_calibration_drop_pct);
  read_number(r, node, "max_memory_bandwidth_drop_pct", 0, out.max_memory_bandwidth_drop_pct);
  read_number(r, node, "max_latency_rise_pct", 0, out.max_latency_rise_pct);
  read_number(r, node, "max_core_round_trip_rise_pct", 0, out.max_core_round_trip_rise_pct);
  read_number(r, node, "max_cpu_pressure_pct", 0, out.max_cpu_pressure_pct);
  read_number(r, node, "bimodal_step_ratio", 1, out.bimodal_step_ratio);
  read_number(r, node, "bimodal_min_gap_ms", 0, out.bimodal_min_gap_ms);
  read_number(r, node, "sample_interval_s", 0.05, out.sample_interval_s);
  read_number(r, node, "settle_s", 0, out.settle_s);
  read_number(r, node, "wait_quiet_s", 0, out.wait_quiet_s);
  if (node["settle_s"] && out.settle_s > kMostSettleSeconds) {
    r.error(pos_of(node["settle_s"]), fmt::format("conditions settle_s must be at most {:g} s", kMostSettleSeconds));
  }
  if (node["wait_quiet_s"] && out.wait_quiet_s > kMostWaitQuietSeconds) {
    r.error(pos_of(node["wait_quiet_s"]),
            fmt::format("conditions wait_quiet_s must be at most {:g} s (a week)", kMostWaitQuietSeconds));
  }
  for (const char* drop : {"max_calibration_drop_pct", "max_memory_bandwidth_drop_pct"}) {
    const double value = drop == std::string("max_calibration_drop_pct") ? out.max_calibration_drop_pct
                                                                         : out.max_memory_bandwidth_drop_pct;
    if (node[drop] && value >= 100) r.error(pos_of(node[drop]), fmt::format("conditions {} must be below 100", drop));
  }
  if (const YAML::Node keep = node["keep_disturbed"]) {
    if (auto text = r.scalar(keep, "conditions keep_disturbed")) {
      if (*text != "true" && *text != "false") {
        r.error(pos_of(keep), fmt::format("conditions keep_disturbed must be true or false, got '{}'", *text));
      }
      out.keep_disturbed = *text == "true";
    }
  }
}

std::optional<RepeatPolicy> read_repeat(YamlReader& r, const YAML::Node& node) {
  if (!node.IsMap()) {
    auto n = r.integer(node, "repeat", 1);
    if (!n) return std::nullopt;
    return RepeatPolicy{*n, *n, std::nullopt};
  }
  if (!r.check_map(node, "repeat", kRepeatKeys)) return std::nullopt;
  bool complete = true;
  for (const auto& key : kRepeatKeys) {
    if (!node[key]) {
      r.error(pos_of(node), fmt::format("repeat needs '{}' (repeat: {{min: 3, max: 20, target_ci_pct: 2}}, or a "
                                        "number of repeats)",
                                        key));
      complete = false;
    }
  }
  if (!complete) return std::nullopt;
  // Every problem at once: each bound is checked whether or not the others hold.
  auto min = r.integer(node["min"], "repeat min", 2);
  auto max = r.integer(node["max"], "repeat max", 2);
  auto target = r.number(node["target_ci_pct"], "repeat target_ci_pct", std::numeric_limits<double>::lowest());
  if (target && *target <= 0) {
    r.error(pos_of(node["target_ci_pct"]), fmt::format("repeat target_ci_pct must be above 0, got {:g}", *target));
    target.reset();
  }
  if (min && max && *max < *min) {
    r.error(pos_of(node["max"]), fmt::format("repeat max ({}) is below min ({})", *max, *min));
    return std::nullopt;
  }
  if (!min || !max || !target) return std::nullopt;
  return RepeatPolicy{*min, *max, *target};
}

}  // namespace mt
