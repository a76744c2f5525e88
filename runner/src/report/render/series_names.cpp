#include "report/render/series_names.h"

#include <algorithm>
#include <set>

namespace mt {

std::vector<std::pair<std::string, std::string>> config_axes(const std::string& config) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < config.size()) {
    const size_t end = std::min(config.find(' ', start), config.size());
    const std::string part = config.substr(start, end - start);
    const size_t eq = part.find('=');
    if (eq == std::string::npos) {
      if (!out.empty()) out.back().second += " " + part;  // a value with a space in it
    } else {
      out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
    }
    start = end + 1;
  }
  return out;
}

namespace {

std::string value_of(const std::vector<std::pair<std::string, std::string>>& axes, const std::string& name) {
  for (const auto& [axis, value] : axes) {
    if (axis == name) return value;
  }
  return "";
}

// Whether `axis`'s value is decided by the values of the axes in `known` across these groups.
bool follows_from(const std::vector<std::vector<std::pair<std::string, std::string>>>& configs,
                  const std::vector<std::string>& known, const std::string& axis) {
  std::map<std::string, std::string> seen;
  for (const auto& c : configs) {
    std::string key;
    for (const auto& k : known) key += value_of(c, k) + '\x1f';
    auto [it, fresh] = seen.emplace(key, value_of(c, axis));
    if (!fresh && it->second != value_of(c, axis)) return false;
  }
  return true;
}

// The axes worth naming among these groups: each that the `known` axes and those named before it
// do not decide, in the order the groups first list them.
std::vector<std::string> named_axes(std::vector<std::vector<std::pair<std::string, std::string>>>& configs,
                                    const std::vector<const Group*>& groups, std::vector<std::string> known) {
  std::vector<std::string> axis_order;
  for (const auto& c : configs) {
    for (const auto& [axis, value] : c) {
      if (std::find(axis_order.begin(), axis_order.end(), axis) == axis_order.end()) axis_order.push_back(axis);
    }
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    configs[i].emplace_back("\x1estudy", groups[i]->study);
    configs[i].emplace_back("\x1estrategy", groups[i]->strategy);
  }
  std::vector<std::string> named;
  for (const auto& axis : axis_order) {
    if (follows_from(configs, known, axis)) continue;
    known.push_back(axis);
    named.push_back(axis);
  }
  return named;
}

}  // namespace

std::map<const Group*, std::string> distinct_configs(const std::vector<const Group*>& groups) {
  std::vector<std::vector<std::pair<std::string, std::string>>> configs;
  for (const Group* g : groups) configs.push_back(config_axes(g->config));
  const std::vector<std::string> named = named_axes(configs, groups, {"\x1estrategy"});
  std::map<const Group*, std::string> out;
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string name;
    for (const auto& axis : named) {
      const std::string value = value_of(configs[i], axis);
      if (!value.empty()) name += (name.empty() ? "" : " ") + axis + "=" + value;
    }
    out[groups[i]] = name;
  }
  return out;
}

std::map<const Group*, std::string> distinct_names(const std::vector<const Group*>& groups, bool with_ranks,
                                                   bool with_strategy) {
  std::set<std::string> studies;
  std::set<int> ranks;
  std::vector<std::vector<std::pair<std::string, std::string>>> configs;
  for (const Group* g : groups) {
    studies.insert(g->study);
    ranks.insert(g->ranks);
    configs.push_back(config_axes(g->config));
  }
  const std::vector<std::string> named = named_axes(configs, groups, {"\x1estudy", "\x1estrategy"});
  std::map<const Group*, std::string> out;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = *groups[i];
    std::string name;
    auto add = [&name](const std::string& part) { name += (name.empty() ? "" : " ") + part; };
    if (studies.size() > 1) add(g.study);
    if (with_strategy) add(g.strategy);
    for (const auto& axis : named) {
      const std::string value = value_of(configs[i], axis);
      if (!value.empty()) add(axis + "=" + value);
    }
    if (with_ranks && ranks.size() > 1) add("×" + std::to_string(g.ranks));
    out[&g] = name.empty() ? g.study : name;
  }
  return out;
}

}  // namespace mt
