#include "store/trial_json.h"

#include <nlohmann/json.hpp>

namespace mt {
namespace {

using json = nlohmann::ordered_json;

json params_to_json(const std::vector<Param>& params) {
  json object = json::object();
  for (const auto& p : params) object[p.name] = p.value;
  return object;
}

std::vector<Param> params_from_json(const json& object) {
  std::vector<Param> params;
  for (const auto& [name, value] : object.items()) params.push_back({name, value.get<std::string>()});
  return params;
}

}  // namespace

std::string trial_to_json(const Trial& t) {
  json j;
  j["study"] = t.study;
  j["workload"] = t.workload;
  j["repeat_index"] = t.repeat_index;
  j["ranks"] = t.ranks;
  j["timeout_s"] = t.timeout_s;
  j["params"] = params_to_json(t.params);
  j["engine_args"] = t.engine_args;
  j["environment"] = params_to_json(t.environment);
  j["derived"] = params_to_json(t.derived);
  if (!t.command.empty()) {
    j["command"] = t.command;
    j["command_uses_launcher"] = t.command_uses_launcher;
    json rules = json::array();
    for (const auto& m : t.metrics) {
      json rule = {{"name", m.name}, {"regex", m.regex}, {"json", m.json_path}};
      if (!m.better.empty()) rule["better"] = m.better;
      rules.push_back(std::move(rule));
    }
    j["metrics"] = rules;
  }
  if (t.is_chain()) {
    json stages = json::array();
    for (const auto& stage : t.stages) stages.push_back(json::parse(stage_to_json(stage)));
    j["stages"] = stages;
  }
  if (t.profile) j["profile"] = true;
  if (t.restart.enabled()) j["restart"] = {{"max", t.restart.max}, {"resume", t.restart.resume}};
  j["axis_names"] = t.axis_names;
  j["identity"] = t.identity;
  j["group_key"] = t.group_key;
  return j.dump();
}

Trial trial_from_json(const std::string& text) {
  json j = json::parse(text);
  Trial t;
  t.study = j.at("study").get<std::string>();
  t.workload = j.at("workload").get<std::string>();
  t.repeat_index = j.at("repeat_index").get<int>();
  t.ranks = j.at("ranks").get<int>();
  t.timeout_s = j.at("timeout_s").get<double>();
  t.params = params_from_json(j.at("params"));
  t.engine_args = j.at("engine_args").get<std::vector<std::string>>();
  t.environment = params_from_json(j.at("environment"));
  t.derived = params_from_json(j.at("derived"));
  if (j.contains("command")) {
    t.command = j.at("command").get<std::vector<std::string>>();
    t.command_uses_launcher = j.at("command_uses_launcher").get<bool>();
    for (const auto& m : j.at("metrics")) {
      t.metrics.push_back({m.at("name").get<std::string>(), m.at("regex").get<std::string>(),
                           m.at("json").get<std::string>(), m.value("better", "")});  // absent: not declared
    }
  }
  for (const auto& stage : j.value("stages", json::array())) t.stages.push_back(stage_from_json(stage.dump()));
  t.profile = j.value("profile", false);  // absent: stored before profiling, or a plain trial
  if (j.contains("restart")) {            // absent: a study without restarts
    t.restart.max = j.at("restart").at("max").get<int>();
    t.restart.resume = j.at("restart").at("resume").get<std::string>();
  }
  t.axis_names = j.at("axis_names").get<std::vector<std::string>>();
  t.identity = j.at("identity").get<std::string>();
  t.group_key = j.at("group_key").get<std::string>();
  return t;
}

nlohmann::ordered_json recorded_parameters(const Trial& t) {
  json params = params_to_json(t.params);
  for (const auto& e : t.environment) params[kEnvAxisPrefix + e.name] = e.value;
  return params;
}

nlohmann::ordered_json stored_parameters(const std::string& parameters_json, const std::string& spec_json) {
  json params = json::parse(parameters_json, nullptr, /*allow_exceptions=*/false);
  if (!params.is_object()) params = json::object();
  // Most trials set no environment (trial_to_json writes it as {}): their spec, read for every
  // trial of a report, is not parsed.
  if (spec_json.find("\"environment\"") == std::string::npos ||
      spec_json.find("\"environment\":{}") != std::string::npos)
    return params;
  const json spec = json::parse(spec_json, nullptr, /*allow_exceptions=*/false);
  if (!spec.is_object() || !spec.contains("environment") || !spec["environment"].is_object()) return params;
  for (const auto& [name, value] : spec["environment"].items()) {
    const std::string axis = kEnvAxisPrefix + name;
    if (value.is_string() && !params.contains(axis)) params[axis] = value;
  }
  return params;
}

std::string launcher_to_json(const LauncherConfig& l) {
  json j;
  j["type"] = l.type;
  j["extra_args"] = l.extra_args;
  j["hostfile"] = l.hostfile.string();
  j["mode"] = l.mode;
  // Only when set: campaigns stored before it keep their identity (experiment_plan hashes this).
  if (!l.step_args.empty()) j["step_args"] = l.step_args;
  if (l.threads_per_rank > 0) j["threads_per_rank"] = l.threads_per_rank;
  if (!l.cpu_sets.empty()) j["cpu_sets"] = l.cpu_sets;
  if (!l.host_sets.empty()) j["host_sets"] = l.host_sets;
  if (l.queue_timeout_s > 0) j["queue_timeout_s"] = l.queue_timeout_s;
  return j.dump();
}

LauncherConfig launcher_from_json(const std::string& text) {
  json j = json::parse(text);
  LauncherConfig l;
  l.type = j.at("type").get<std::string>();
  l.extra_args = j.at("extra_args").get<std::vector<std::string>>();
  l.hostfile = j.at("hostfile").get<std::string>();
  l.mode = j.value("mode", l.mode);  // absent in campaigns stored before modes existed
  l.step_args = j.value("step_args", std::vector<std::string>{});
  l.threads_per_rank = j.value("threads_per_rank", 0);
  l.cpu_sets = j.value("cpu_sets", std::vector<std::string>{});
  l.host_sets = j.value("host_sets", std::vector<std::string>{});
  l.queue_timeout_s = j.value("queue_timeout_s", 0.0);
  return l;
}

}  // namespace mt
