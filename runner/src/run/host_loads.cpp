#include "run/host_loads.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "json_fields.h"

namespace mt {
namespace {

struct RankWindow {
  std::string host, machine;  // machine: the boot id, else the hostname
  double wall_s = 0, busy_cpu_s = 0, own_cpu_s = 0, steal_pct = 0;
  int cpus = 0;
};

std::optional<double> number(const nlohmann::json& j, const char* key) {
  const std::optional<double> value = number_field(j, key);
  if (!value || !(*value >= 0 && *value <= 1e12)) return std::nullopt;
  return value;
}

// Nullopt where the rank's window is missing or malformed.
std::optional<RankWindow> rank_window(const nlohmann::json& j, const std::string& host) {
  if (!j.is_object()) return std::nullopt;
  const auto wall = number(j, "wall_s"), cpus = number(j, "cpus"), busy = number(j, "busy_cpu_s"),
             own = number(j, "own_cpu_s"), steal = number(j, "steal_pct");
  if (!wall || !cpus || !busy || !own || !steal || *wall <= 0 || *cpus < 1 || *cpus > 1e6) return std::nullopt;
  RankWindow w;
  w.host = host;
  const std::string boot_id = text_field(j, "boot_id");
  w.machine = boot_id.empty() ? "host:" + host : boot_id;
  w.wall_s = *wall;
  w.cpus = int(*cpus);
  w.busy_cpu_s = *busy;
  w.own_cpu_s = *own;
  w.steal_pct = *steal;
  return w;
}

}  // namespace

std::vector<HostLoad> other_machines_load(const std::string& result_json, const std::string& own_boot_id,
                                          const std::string& own_host) {
  const auto result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("hosts") || !result.contains("rank_host_window")) return {};
  const auto &hosts = result["hosts"], &windows = result["rank_host_window"];
  if (!hosts.is_array() || !windows.is_array() || hosts.size() != windows.size()) return {};
  std::vector<std::optional<RankWindow>> of_rank;
  std::map<std::string, std::string> machine_of_host;  // from the ranks whose window says
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (!hosts[r].is_string()) return {};
    of_rank.push_back(rank_window(windows[r], hosts[r].get<std::string>()));
    if (of_rank.back()) machine_of_host.emplace(of_rank.back()->host, of_rank.back()->machine);
  }
  // Each machine's ranks, in the order of each machine's first rank. A rank without a window
  // belongs to its host's machine, which it leaves incomplete.
  struct Machine {
    std::string id;
    std::vector<RankWindow> ranks;
    bool complete = true;
    bool ours = false;  // mtrun's own: its kernel, or a rank on mtrun's hostname
  };
  std::vector<Machine> machines;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const std::string host = hosts[r].get<std::string>();
    const auto known = machine_of_host.find(host);
    const std::string id = known != machine_of_host.end() ? known->second : "host:" + host;
    auto machine = std::find_if(machines.begin(), machines.end(), [&](const Machine& m) { return m.id == id; });
    if (machine == machines.end()) {
      machines.emplace_back();
      machine = std::prev(machines.end());
      machine->id = id;
    }
    if (of_rank[r]) {
      machine->ranks.push_back(*of_rank[r]);
    } else {
      machine->complete = false;
    }
    machine->ours = machine->ours || (!own_boot_id.empty() && id == own_boot_id) || host == own_host;
  }
  std::vector<HostLoad> loads;
  // mtrun's own machine is read by mtrun itself.
  for (const Machine& machine : machines) {
    if (machine.ours || !machine.complete) continue;
    const RankWindow& first = machine.ranks.front();
    double job_cpu_s = 0;
    std::vector<std::string> names;
    for (const RankWindow& w : machine.ranks) {
      job_cpu_s += w.own_cpu_s;
      if (std::find(names.begin(), names.end(), w.host) == names.end()) names.push_back(w.host);
    }
    HostLoad load;
    load.hosts = fmt::format("{}", fmt::join(names, "+"));
    load.wall_s = first.wall_s;
    load.cpus = first.cpus;
    load.foreign_cpu_pct = std::max(0.0, first.busy_cpu_s - job_cpu_s) / first.wall_s * 100.0;
    load.steal_pct = first.steal_pct;
    loads.push_back(load);
  }
  return loads;
}

std::string this_kernel_boot_id() {
  std::ifstream file("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(file, id);
  return id;
}

}  // namespace mt
