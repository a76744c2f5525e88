#include "store/result_ingest.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mt {
namespace {

using json = nlohmann::json;

void flatten(const json& node, const std::string& prefix, std::vector<MetricValue>& out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_number()) {
      out.push_back({name, it->get<double>()});
    } else if (it->is_object() && it.key() != "per_step") {
      flatten(*it, name, out);
    }
  }
}

std::vector<StepValue> step_series(const json& result) {
  std::vector<StepValue> out;
  if (!result.contains("per_step") || !result["per_step"].is_object()) return out;
  for (const auto& [name, series] : result["per_step"].items()) {
    if (!series.is_array()) continue;
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].is_number()) {
        out.push_back({name, -1, int(i), series[i].get<double>()});
      } else if (series[i].is_array()) {  // [rank][step]
        for (size_t step = 0; step < series[i].size(); ++step) {
          if (series[i][step].is_number()) out.push_back({name, int(i), int(step), series[i][step].get<double>()});
        }
      }
    }
  }
  return out;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Open MPI names the rank that died of a signal: "process rank 1 with PID 42 on node n exited on signal 9".
bool find_rank_signal(const std::string& log, int& rank, int& signal) {
  static const std::regex pattern(R"(process rank (\d+) with PID \d+ on node \S+ exited on signal (\d+))");
  std::smatch m;
  if (!std::regex_search(log, m, pattern)) return false;
  rank = std::stoi(m[1]);
  signal = std::stoi(m[2]);
  return true;
}

// The most telling line of a failed job's log: the engine's own message (prefixed "mtengine" or
// mentioning an error) if there is one, else the first line before mpirun's "----" epilogue.
std::string reason_from_log(const std::string& log) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (line.rfind("-----", 0) == 0) break;
    if (line.rfind("mtengine", 0) == 0 || line.find("rror") != std::string::npos) return line.substr(0, 500);
    if (first.empty() && line.find_first_not_of(' ') != std::string::npos) first = line;
  }
  return first.substr(0, 500);
}

// Applies a command workload's metric rules; returns "" or why a declared metric is missing.
std::string extract_command_metrics(const std::vector<MetricRule>& rules, const std::string& log, const json& result,
                                    std::vector<MetricValue>& metrics) {
  for (const auto& rule : rules) {
    std::optional<double> value;
    if (!rule.regex.empty()) {
      std::smatch m;
      std::regex pattern(rule.regex);
      if (std::regex_search(log, m, pattern) && m.size() > 1) {
        char* end = nullptr;
        std::string text = m[1];
        double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && *end == '\0') value = v;
      }
      if (!value) return fmt::format("metric '{}': no number matched regex '{}' in the output", rule.name, rule.regex);
    } else {
      const json* node = result.is_object() ? &result : nullptr;
      std::istringstream path(rule.json_path);
      std::string key;
      while (node && std::getline(path, key, '.')) node = node->contains(key) ? &(*node)[key] : nullptr;
      if (node && node->is_number()) value = node->get<double>();
      if (!value) return fmt::format("metric '{}': no number at '{}' in the result file", rule.name, rule.json_path);
    }
    metrics.erase(std::remove_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.name == rule.name; }),
                  metrics.end());
    metrics.push_back({rule.name, *value});
  }
  return "";
}

}  // namespace

std::vector<MetricValue> flatten_metrics(const std::string& result_json) {
  std::vector<MetricValue> out;
  json doc = json::parse(result_json, nullptr, false);
  if (doc.is_object()) flatten(doc, "", out);
  return out;
}

AttemptOutcome classify_attempt(const ProcessOutcome& process, const std::filesystem::path& result_file,
                                const std::filesystem::path& log_file, const Trial& trial) {
  AttemptOutcome o;
  o.duration_s = process.duration_s;
  json result;
  if (std::filesystem::exists(result_file)) {
    std::string text = read_file(result_file);
    result = json::parse(text, nullptr, false);
    if (result.is_object()) {
      o.result_json = text;
      flatten(result, "", o.metrics);
      o.steps = step_series(result);
      if (result.contains("error") && result["error"].is_object()) {
        const json& e = result["error"];
        if (e.contains("rank") && e["rank"].is_number_integer()) o.error_rank = e["rank"].get<int>();
        if (e.contains("step") && e["step"].is_number_integer()) o.error_step = e["step"].get<int>();
        if (e.contains("reason") && e["reason"].is_string()) o.error_reason = e["reason"].get<std::string>();
      }
    }
  }
  std::string log = read_file(log_file);
  switch (process.end) {
    case ProcessEnd::LaunchFailed:
      o.state = AttemptState::LaunchFailed;
      o.error_reason = process.launch_error;
      return o;
    case ProcessEnd::TimedOut:
      o.state = AttemptState::TimedOut;
      o.error_reason = "trial exceeded its timeout; every rank was killed";
      return o;
    case ProcessEnd::Interrupted:
      o.state = AttemptState::Interrupted;
      o.error_reason = "runner was interrupted; the job was terminated";
      return o;
    case ProcessEnd::Signaled:
      o.state = AttemptState::Crashed;
      o.signal = process.signal;
      o.error_reason = fmt::format("launcher killed by signal {}", process.signal);
      return o;
    case ProcessEnd::Exited: break;
  }
  o.exit_code = process.exit_code;
  int rank = 0, signal = 0;
  if (find_rank_signal(log, rank, signal)) {
    o.state = AttemptState::Crashed;
    o.error_rank = rank;
    o.signal = signal;
    o.error_reason = fmt::format("rank {} died of signal {}", rank, signal);
    return o;
  }
  if (trial.workload == "command") {
    if (process.exit_code == 0) {
      std::string problem = extract_command_metrics(trial.metrics, log, result, o.metrics);
      o.state = problem.empty() ? AttemptState::Succeeded : AttemptState::Failed;
      if (!problem.empty()) o.error_reason = problem;
    } else {
      o.state = AttemptState::Failed;
      o.error_reason = reason_from_log(log);
    }
    return o;
  }
  bool result_ok = result.is_object() && result.value("status", "") == "ok";
  if (process.exit_code == 0 && result_ok) {
    o.state = AttemptState::Succeeded;
    return o;
  }
  o.state = AttemptState::Failed;
  if (!o.error_reason) {
    o.error_reason = process.exit_code == 0 ? std::string("engine exited 0 but wrote no valid result file")
                                            : reason_from_log(log);
  }
  return o;
}

}  // namespace mt
