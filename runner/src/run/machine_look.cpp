#include "run/machine_look.h"

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launch/machine_sampler.h"
#include "runner_error.h"
#include "store/lease.h"

namespace mt {
namespace {

std::string optional_pct(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f} %", *value) : std::string("not readable");
}

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json cores_json(const CoresNow& cores) {
  nlohmann::json j;
  j["round_trip_ns"] = optional_number(cores.round_trip_ns);
  j["usual_ns"] = optional_number(cores.usual_ns);
  j["campaign"] = cores.campaign_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(cores.campaign_id);
  j["max_rise_pct"] = cores.usual_ns ? nlohmann::json(cores.max_rise_pct) : nlohmann::json(nullptr);
  j["far_apart"] = cores.far_apart();
  j["says"] = cores.describe();
  return j;
}

}  // namespace

MachineLook look_at_this_machine(double seconds, const std::filesystem::path& db, bool load_only) {
  const auto conditions = measure_machine(seconds);
  if (!conditions) throw RunnerError(kExitFailure, "/proc/stat is not readable: the machine's load cannot be measured");
  MachineLook look;
  look.reading.host = this_host();
  if (const char* node = std::getenv("SLURMD_NODENAME")) look.reading.node = node;
  look.reading.conditions = *conditions;
  look.verdict = judge_idle_machine(*conditions, ConditionsThresholds{});
  // The cores as the next campaign's attempts will read them, where nothing else holds them.
  if (!look.verdict.disturbed && !load_only) {
    look.cores = read_cores_now(db);
    if (look.cores->far_apart()) {
      look.verdict.disturbed = true;
      look.verdict.reasons.push_back(look.cores->far_apart_reason());
    }
  }
  return look;
}

std::string machine_look_text(const MachineLook& look) {
  const NodeReading& r = look.reading;
  const MachineConditions& c = r.conditions;
  std::string text =
      fmt::format("{}{}: {} CPUs over {:.1f} s: other processes used {:.0f} % of a core, steal {}, CPU pressure {}\n",
                  r.host, r.node.empty() ? "" : fmt::format(" (Slurm node {})", r.node), c.cpus, c.wall_s,
                  c.foreign_cpu_pct, optional_pct(c.steal_pct), optional_pct(c.cpu_pressure_pct));
  if (look.cores) text += fmt::format("cores: {}\n", look.cores->describe());
  if (!look.verdict.disturbed) return text + "quiet (the default thresholds of docs/measurement.md, \"Conditions\")\n";
  for (const std::string& reason : look.verdict.reasons) text += fmt::format("busy: {}\n", reason);
  return text;
}

std::string machine_look_json(const MachineLook& look) {
  // The reading's own fields, as `run` reads them back from each node (parse_reading ignores the rest).
  nlohmann::json j = nlohmann::json::parse(reading_json(look.reading));
  j["cores"] = look.cores ? cores_json(*look.cores) : nlohmann::json(nullptr);
  j["verdict"] = look.verdict.disturbed ? "busy" : "quiet";
  j["reasons"] = look.verdict.reasons;
  return j.dump();
}

}  // namespace mt
