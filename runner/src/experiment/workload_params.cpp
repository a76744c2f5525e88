#include "experiment/workload_params.h"

#include "experiment/diagnostic.h"

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mt {
namespace {

ParamSpec ranks_param() {
  ParamSpec ranks{"ranks", ParamType::Integer};
  ranks.minimum = 1;
  ranks.engine_flag = false;
  return ranks;
}

struct Registry {
  std::vector<WorkloadSpec> table;
  std::map<std::string, std::string> unavailable;  // engine workload -> why it is not registered
};

Registry& registry() {
  static Registry r = [] {
    Registry fresh;
    WorkloadSpec command;
    command.name = "command";
    command.params = {ranks_param()};
    command.free_form_params = true;
    fresh.table.push_back(std::move(command));
    for (const auto& name : engine_workload_names())
      fresh.unavailable[name] = "the engine's description of '" + name + "' was not loaded";
    return fresh;
  }();
  return r;
}

}  // namespace

const ParamSpec* WorkloadSpec::find(const std::string& param) const {
  for (const auto& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

std::vector<std::string> WorkloadSpec::param_names() const {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

bool takes_text_flag(const WorkloadSpec& workload, const char* param) {
  const ParamSpec* spec = workload.free_form_params ? nullptr : workload.find(param);
  return spec && spec->engine_flag && spec->type == ParamType::Text;
}

bool can_profile(const WorkloadSpec& workload) { return takes_text_flag(workload, kProfileParam); }

const std::vector<std::string>& engine_workload_names() {
  static const std::vector<std::string> names = {"train", "comm", "moe", "tp", "groups"};
  return names;
}

const std::vector<WorkloadSpec>& workload_table() { return registry().table; }

void register_engine_workload(WorkloadSpec spec) {
  auto& r = registry();
  r.unavailable.erase(spec.name);
  // The runner's own parameter: how many ranks the launcher starts.
  if (!spec.find("ranks")) spec.params.insert(spec.params.begin(), ranks_param());
  for (auto& existing : r.table) {
    if (existing.name == spec.name) {
      existing = std::move(spec);
      return;
    }
  }
  r.table.push_back(std::move(spec));
}

void set_engine_workload_unavailable(const std::string& name, const std::string& reason) {
  auto& r = registry();
  r.table.erase(std::remove_if(r.table.begin(), r.table.end(), [&](const auto& w) { return w.name == name; }),
                r.table.end());
  r.unavailable[name] = reason;
}

std::optional<std::string> engine_workload_problem(const std::string& name) {
  auto& r = registry();
  auto it = r.unavailable.find(name);
  if (it == r.unavailable.end()) return std::nullopt;
  return it->second;
}

const WorkloadSpec* find_workload(const std::string& name) {
  for (const auto& w : workload_table()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::string param_default(const std::string& workload, const std::string& param) {
  const WorkloadSpec* spec = find_workload(workload);
  const ParamSpec* p = spec ? spec->find(param) : nullptr;
  return p ? p->default_value : "";
}

std::string reference_strategy() { return param_default("train", kStrategyParam); }

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& w : workload_table()) names.push_back(w.name);
  for (const auto& [name, why] : registry().unavailable) names.push_back(name);
  return names;
}

namespace {

// Bounds as the engine states them: inclusive unless marked exclusive. `too_large` reports a
// value past what a long long holds.
std::optional<std::string> bound_problem(const ParamSpec& spec, double v, const std::string& text, bool too_large) {
  const bool below = spec.exclusive_minimum ? v <= spec.minimum : v < spec.minimum;
  if (below && !(too_large && v > 0))
    return fmt::format("{} must be {} {}, got {}", spec.name, spec.exclusive_minimum ? "greater than" : "at least",
                       spec.minimum, text);
  const bool above = spec.exclusive_maximum ? v >= spec.maximum : v > spec.maximum;
  if (above || (too_large && v > 0))
    return fmt::format("{} must be {} {}, got {}", spec.name, spec.exclusive_maximum ? "below" : "at most",
                       spec.maximum, text);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_param_value(const ParamSpec& spec, const std::string& value) {
  const char* begin = value.c_str();
  char* end = nullptr;
  switch (spec.type) {
    case ParamType::Integer: {
      errno = 0;
      long long v = std::strtoll(begin, &end, 10);
      if (value.empty() || *end != '\0') return fmt::format("{} must be an integer, got '{}'", spec.name, value);
      // The engine's flag parser reads a leading 0 as octal (and 0x as hexadecimal): "010" would
      // check here as 10 and train 8 steps.
      if (const std::string_view digits = std::string_view(value).substr(value[0] == '-' || value[0] == '+');
          digits.size() > 1 && digits.front() == '0')
        return fmt::format("{} '{}' has a leading 0, which mtengine would read as octal: write it without", spec.name,
                           value);
      const bool overflow = errno == ERANGE;  // v is then LLONG_MIN or LLONG_MAX: the sign is right
      if (auto problem = bound_problem(spec, static_cast<double>(v), value, overflow)) return problem;
      return std::nullopt;
    }
    case ParamType::Number: {
      errno = 0;
      double v = std::strtod(begin, &end);
      if (value.empty() || *end != '\0') return fmt::format("{} must be a number, got '{}'", spec.name, value);
      if (!std::isfinite(v)) return fmt::format("{} must be a finite number, got '{}'", spec.name, value);
      if (auto problem = bound_problem(spec, v, value, false)) return problem;
      return std::nullopt;
    }
    case ParamType::Choice:
      for (const auto& c : spec.choices) {
        if (c == value) return std::nullopt;
      }
      if (std::string hint = did_you_mean(value, spec.choices); !hint.empty()) {
        return fmt::format("unknown {} '{}'{}", spec.name, value, hint);
      }
      return fmt::format("unknown {} '{}' (expected one of: {})", spec.name, value, fmt::join(spec.choices, ", "));
    case ParamType::Boolean:
      if (value == "true" || value == "false") return std::nullopt;
      return fmt::format("{} must be true or false, got '{}'", spec.name, value);
    case ParamType::Text:
      if (!value.empty()) return std::nullopt;
      return fmt::format("{} must not be empty", spec.name);
  }
  return std::nullopt;
}

}  // namespace mt
