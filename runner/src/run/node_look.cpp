#include "run/node_look.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "launch/bounded_capture.h"

namespace mt {
namespace {

void put(nlohmann::json& j, const char* key, const std::optional<double>& value) {
  j[key] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) throw std::runtime_error(fmt::format("no number `{}`", key));
  return j[key].get<double>();
}

std::optional<double> optional_number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return number(j, key);
}

std::string text(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) throw std::runtime_error(fmt::format("no string `{}`", key));
  return j[key].get<std::string>();
}

}  // namespace

std::string reading_json(const NodeReading& reading) {
  const MachineConditions& c = reading.conditions;
  nlohmann::json j;
  j["host"] = reading.host;
  j["node"] = reading.node;
  j["wall_s"] = c.wall_s;
  j["cpus"] = c.cpus;
  j["busy_cpu_s"] = c.busy_cpu_s;
  j["runner_cpu_s"] = c.runner_cpu_s;
  j["foreign_cpu_pct"] = c.foreign_cpu_pct;
  put(j, "steal_pct", c.steal_pct);
  put(j, "cpu_pressure_pct", c.cpu_pressure_pct);
  put(j, "memory_pressure_pct", c.memory_pressure_pct);
  put(j, "load1", c.load1_after);
  return j.dump();
}

NodeReading parse_reading(const std::string& line) {
  const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  NodeReading r;
  r.host = text(j, "host");
  r.node = text(j, "node");
  MachineConditions& c = r.conditions;
  c.wall_s = number(j, "wall_s");
  // Bounded before the conversion: a double beyond int's range does not convert.
  const double cpus = number(j, "cpus");
  if (!(cpus >= 1 && cpus <= 1e6)) throw std::runtime_error("`cpus` must be 1 to 1000000");
  c.cpus = int(cpus);
  c.busy_cpu_s = number(j, "busy_cpu_s");
  c.runner_cpu_s = number(j, "runner_cpu_s");
  c.foreign_cpu_pct = number(j, "foreign_cpu_pct");
  c.steal_pct = optional_number(j, "steal_pct");
  c.cpu_pressure_pct = optional_number(j, "cpu_pressure_pct");
  c.memory_pressure_pct = optional_number(j, "memory_pressure_pct");
  c.load1_after = optional_number(j, "load1");
  if (!(c.wall_s > 0)) throw std::runtime_error("`wall_s` must be positive");
  return r;
}

std::vector<std::string> srun_look_launcher(int nodes) {
  std::vector<std::string> argv = {"srun",   "--overlap", "--mpi=none", "--ntasks-per-node=1", "--job-name=mtrun-look",
                                   "--quiet"};
  if (nodes > 0) {
    argv.push_back(fmt::format("--nodes={}", nodes));
    argv.push_back(fmt::format("--ntasks={}", nodes));
  }
  return argv;
}

std::vector<std::string> mpirun_look_launcher(const std::filesystem::path& hostfile, bool as_root,
                                              const std::vector<std::string>& extra_args) {
  std::vector<std::string> argv = {"mpirun", "--hostfile", hostfile.string(), "--map-by", "ppr:1:node"};
  if (as_root) argv.push_back("--allow-run-as-root");
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  return argv;
}

std::vector<std::string> node_look_command(const std::vector<std::string>& launcher, const std::filesystem::path& mtrun,
                                           double seconds) {
  std::vector<std::string> argv = launcher;
  for (const std::string& word : {mtrun.string(), std::string("look"), std::string("--json"),
                                  std::string("--load-only"), std::string("--seconds"), fmt::format("{:g}", seconds)}) {
    argv.push_back(word);
  }
  return argv;
}

NodesLook judge_node_readings(const std::string& output, int nodes, const ConditionsThresholds& thresholds) {
  NodesLook look;
  // By node name, so that the reasons read in the same order whichever node answered first.
  std::map<std::string, MachineConditions> readings;
  std::size_t line_number = 0;
  for (const std::string& line : nonblank_lines(output)) {
    ++line_number;
    NodeReading reading;
    try {
      reading = parse_reading(line);
    } catch (const std::exception& e) {
      look.unavailable =
          fmt::format("line {} of the nodes' readings is not one ({}): {:.80}", line_number, e.what(), line);
      return look;
    }
    const std::string name = reading.node.empty() ? reading.host : reading.node;
    if (!readings.emplace(name, reading.conditions).second) {
      look.unavailable = fmt::format("node {} gave two readings", name);
      return look;
    }
  }
  if (readings.empty()) {
    look.unavailable = "no node gave a reading";
    return look;
  }
  std::vector<std::string> names;
  for (const auto& [name, conditions] : readings) names.push_back(name);
  if (nodes > 0 && int(readings.size()) != nodes) {
    look.unavailable =
        fmt::format("{} of the {} nodes gave a reading ({})", readings.size(), nodes, fmt::join(names, ", "));
    return look;
  }
  for (const auto& [name, conditions] : readings) {
    for (const std::string& reason : judge_idle_machine(conditions, thresholds).reasons) {
      look.verdict.reasons.push_back(fmt::format("node {}: {}", name, reason));
    }
  }
  look.measured = true;
  look.verdict.disturbed = !look.verdict.reasons.empty();
  return look;
}

}  // namespace mt
