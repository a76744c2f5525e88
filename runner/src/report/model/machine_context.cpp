#include "report/model/machine_context.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "report/render/cells.h"

namespace mt {
namespace {

// The runner adds these exactly when a single-node job has more ranks than the machine has cores.
bool asked_to_oversubscribe(const std::string& command) {
  std::istringstream words(command);
  for (std::string w; words >> w;) {
    if (w == "--oversubscribe" || w == "-O" || w == "--overcommit") return true;
  }
  return false;
}

}  // namespace

nlohmann::json trial_environment(const ReportTrial& t) {
  if (t.result.is_object()) {
    auto it = t.result.find("environment");
    if (it != t.result.end() && it->is_object()) return *it;
  }
  if (t.provenance && t.provenance->software_stack.is_object()) {
    return nlohmann::json::parse(t.provenance->software_stack.dump());
  }
  return nlohmann::json::object();
}

std::string environment_text(const nlohmann::json& env, const std::string& key) {
  auto it = env.find(key);
  if (it == env.end() || it->is_null()) return "";
  const nlohmann::json& v = *it;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return auto_number(v.get<double>());
  if (v.is_object()) {
    std::map<std::string, std::string> sorted;
    for (const auto& [name, value] : v.items())
      sorted[name] = value.is_string() ? value.get<std::string>() : value.dump();
    std::string out;
    for (const auto& [name, value] : sorted) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
    return out.empty() ? "none set" : out;
  }
  return v.dump();
}

bool is_per_launch_field(const std::string& key) {
  // Measured or chosen at each launch: they vary between runs of one build on one machine.
  static const std::set<std::string> fields = {"threads_per_rank", "blas_threads",
                                               "env_vars",         "blas_gflops_per_thread",
                                               "blas_efficiency",  "memory_copy_gbps_per_thread",
                                               "probe_ms",         "sgemm_probe_ms",
                                               "cpu_mhz",          "cpu_mhz_measured",
                                               "gemm_backends"};
  return fields.count(key) > 0;
}

CoreUse core_use(const ReportTrial& t) {
  CoreUse use = stated_core_use(t.result, trial_environment(t), t.ranks);
  use.launcher_oversubscribed = asked_to_oversubscribe(t.command);
  return use;
}

CoreUse core_use(const Group& g) {
  CoreUse use = core_use(g.first());
  for (const ReportTrial* t : g.succeeded) {
    if (core_use(*t).oversubscribed()) use.launcher_oversubscribed = true;
  }
  return use;
}

std::string core_use_cell(const CoreUse& use) {
  std::string threads = use.threads_per_rank ? std::to_string(*use.threads_per_rank) : "?";
  std::string per_node = fmt::format("{} × {}", use.ranks_per_node, threads);
  if (use.threads_per_rank) per_node += fmt::format(" = {}", use.ranks_per_node * *use.threads_per_rank);
  std::string out;
  if (use.cores) {
    out = fmt::format("{} {} {} cores", per_node, use.oversubscribed() ? ">" : "of", *use.cores);
  } else {
    out = per_node + (use.launcher_oversubscribed ? " (cores not recorded; launched with more ranks than cores)"
                                                  : " (cores not recorded)");
  }
  return use.oversubscribed() ? out + " " + kOversubscribedMark : out;
}

}  // namespace mt
