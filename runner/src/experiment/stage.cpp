#include "experiment/stage.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace mt {
namespace {

using json = nlohmann::ordered_json;

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

template <typename T>
void get(const json& j, const char* key, std::optional<T>& v) {
  if (j.contains(key)) v = j.at(key).get<T>();
}

json expectation_to_json(const StageExpectation& e) {
  json j;
  j["outcome"] = e.outcome;
  put(j, "rank", e.rank);
  put(j, "exit_code", e.exit_code);
  put(j, "step", e.step);
  if (!e.message_contains.empty()) j["message_contains"] = e.message_contains;
  put(j, "resumed_from_step", e.resumed_from_step);
  put(j, "restarts", e.restarts);
  put(j, "exact_match", e.exact_match);
  put(j, "ready_steps", e.ready_steps);
  if (!e.no_ready_steps.empty()) j["no_ready_steps"] = e.no_ready_steps;
  put(j, "latest_step", e.latest_step);
  if (!e.checkpoint_dir.empty()) j["checkpoint_dir"] = e.checkpoint_dir;
  return j;
}

StageExpectation expectation_from_json(const json& j) {
  StageExpectation e;
  e.outcome = j.at("outcome").get<std::string>();
  get(j, "rank", e.rank);
  get(j, "exit_code", e.exit_code);
  get(j, "step", e.step);
  e.message_contains = j.value("message_contains", "");
  get(j, "resumed_from_step", e.resumed_from_step);
  get(j, "restarts", e.restarts);
  get(j, "exact_match", e.exact_match);
  get(j, "ready_steps", e.ready_steps);
  e.no_ready_steps = j.value("no_ready_steps", std::vector<int>{});
  get(j, "latest_step", e.latest_step);
  e.checkpoint_dir = j.value("checkpoint_dir", "");
  return e;
}

}  // namespace

std::string restarts_text(int restarts) {
  return restarts == 0 ? std::string("no restart")
                       : fmt::format("restarted {} time{}", restarts, restarts == 1 ? "" : "s");
}

const std::vector<std::string> kStageOutcomes = {"succeeded", "failed", "crashed", "timed_out"};

std::string StageExpectation::describe() const {
  std::vector<std::string> parts;
  std::string head = outcome;
  if (rank) head += fmt::format(" on rank {}", *rank);
  if (exit_code) head += fmt::format(", exit {}", *exit_code);
  if (step) head += fmt::format(" at step {}", *step);
  parts.push_back(head);
  if (!message_contains.empty()) parts.push_back(fmt::format("output has \"{}\"", message_contains));
  if (restarts) parts.push_back(restarts_text(*restarts));
  if (resumed_from_step) parts.push_back(fmt::format("resumed from step {}", *resumed_from_step));
  if (exact_match) parts.push_back(*exact_match ? "exact match" : "not an exact match");
  if (ready_steps) {
    parts.push_back(ready_steps->empty() ? std::string("no READY step")
                                         : fmt::format("READY steps {}", fmt::join(*ready_steps, " ")));
  }
  for (int s : no_ready_steps) parts.push_back(fmt::format("step {} not READY", s));
  if (latest_step) parts.push_back(fmt::format("latest {}", *latest_step));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string expectation_json(const StageExpectation& expect) { return expectation_to_json(expect).dump(); }

std::string stage_to_json(const Stage& s) {
  json j;
  j["name"] = s.name;
  j["workload"] = s.workload;
  json params = json::object();
  for (const auto& p : s.params) params[p.name] = p.value;
  j["params"] = params;
  j["engine_args"] = s.engine_args;
  if (!s.compare.empty()) j["compare"] = s.compare;
  if (!s.command.empty()) {
    j["command"] = s.command;
    j["command_uses_launcher"] = s.command_uses_launcher;
  }
  if (s.timeout_s > 0) j["timeout_s"] = s.timeout_s;
  j["expect"] = expectation_to_json(s.expect);
  return j.dump();
}

Stage stage_from_json(const std::string& text) {
  const json j = json::parse(text);
  Stage s;
  s.name = j.at("name").get<std::string>();
  s.workload = j.at("workload").get<std::string>();
  for (const auto& [name, value] : j.at("params").items()) s.params.push_back({name, value.get<std::string>()});
  s.engine_args = j.at("engine_args").get<std::vector<std::string>>();
  s.compare = j.value("compare", std::vector<std::string>{});
  s.command = j.value("command", std::vector<std::string>{});
  s.command_uses_launcher = j.value("command_uses_launcher", true);
  s.timeout_s = j.value("timeout_s", 0.0);
  s.expect = expectation_from_json(j.at("expect"));
  return s;
}

}  // namespace mt
