#include "report/compare/config_matching.h"

#include <fmt/format.h>

#include "runner_error.h"

namespace mt {
namespace {

constexpr const char* kNotSet = "(not set)";

using ValueSet = std::set<std::string>;

std::string value_of(const Configuration& c, const std::string& name) {
  auto it = c.params.find(name);
  return it == c.params.end() ? kNotSet : it->second;
}

std::string joined(const ValueSet& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : "/") + v;
  return out;
}

std::set<std::string> parameter_names(const std::vector<Configuration>& a, const std::vector<Configuration>& b,
                                      const std::string& study) {
  std::set<std::string> names;
  for (const auto* side : {&a, &b}) {
    for (const auto& c : *side) {
      if (c.study != study) continue;
      for (const auto& [name, value] : c.params) names.insert(name);
    }
  }
  return names;
}

ValueSet values_of(const std::vector<Configuration>& side, const std::string& study, const std::string& name) {
  ValueSet out;
  for (const auto& c : side) {
    if (c.study == study) out.insert(value_of(c, name));
  }
  return out;
}

// The key two configurations share when they match: the study and every parameter not left out.
std::string match_key(const Configuration& c, const std::set<std::string>& left_out) {
  std::string key = c.study;
  for (const auto& [name, value] : c.params) {
    if (!left_out.count(name)) key += fmt::format("\n{}={}", name, value);
  }
  return key;
}

std::map<std::string, std::size_t> index_by_key(const std::vector<Configuration>& side, const char* letter,
                                                const std::map<std::string, std::set<std::string>>& left_out) {
  static const std::set<std::string> none;
  std::map<std::string, std::size_t> out;
  for (std::size_t i = 0; i < side.size(); ++i) {
    auto it = left_out.find(side[i].study);
    const auto& skip = it == left_out.end() ? none : it->second;
    auto [at, fresh] = out.emplace(match_key(side[i], skip), i);
    if (fresh) continue;
    throw RunnerError(kExitUsage,
                      fmt::format("campaign {}: configurations of study '{}' cannot be told apart once {} {} left out "
                                  "of the match ({} and {}); name the parameters to match on with --match",
                                  letter, side[i].study, fmt::join(skip, ", "), skip.size() == 1 ? "is" : "are",
                                  parameter_text(side[at->second], skip), parameter_text(side[i], skip)));
  }
  return out;
}

}  // namespace

void check_named_parameters(const std::vector<Configuration>& a, const std::vector<Configuration>& b,
                            const MatchRules& rules) {
  std::set<std::string> known;
  for (const auto* side : {&a, &b}) {
    for (const auto& c : *side) {
      for (const auto& [name, value] : c.params) known.insert(name);
    }
  }
  for (const auto* names : {&rules.match, &rules.ignore}) {
    for (const auto& name : *names) {
      if (known.count(name)) continue;
      throw RunnerError(kExitUsage,
                        fmt::format("--{} {}: no configuration of either campaign has a parameter '{}' "
                                    "(they have: {})",
                                    names == &rules.match ? "match" : "ignore", name, name, fmt::join(known, ", ")));
    }
  }
  for (const auto& name : rules.match) {
    if (rules.ignore.count(name)) {
      throw RunnerError(kExitUsage, fmt::format("parameter '{}' is given to both --match and --ignore", name));
    }
  }
}

std::string parameter_text(const Configuration& c, const std::set<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    auto it = c.params.find(name);
    if (it != c.params.end()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, it->second);
  }
  return out;
}

ConfigurationMatch match_configurations(const std::vector<Configuration>& a, const std::vector<Configuration>& b,
                                        const MatchRules& rules) {
  ConfigurationMatch out;
  std::set<std::string> studies_a, studies_b;
  for (const auto& c : a) studies_a.insert(c.study);
  for (const auto& c : b) studies_b.insert(c.study);
  std::map<std::string, std::set<std::string>> left_out;
  for (const auto& study : studies_a) {
    if (!studies_b.count(study)) continue;
    for (const auto& name : parameter_names(a, b, study)) {
      const ValueSet va = values_of(a, study, name), vb = values_of(b, study, name);
      const bool differs = va != vb;
      const bool leave_out =
          !rules.match.count(name) && (rules.ignore.count(name) || (differs && va.size() == 1 && vb.size() == 1));
      if (leave_out) {
        left_out[study].insert(name);
        if (differs) out.changed.push_back({study, name, joined(va), joined(vb)});
      } else if (differs) {
        out.distinguishing[study].insert(name);
      }
    }
  }
  index_by_key(a, "A", left_out);  // for its check: no two configurations of A may share a key
  const auto keys_b = index_by_key(b, "B", left_out);
  std::set<std::size_t> matched_b;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto skip = left_out.find(a[i].study);
    auto it = keys_b.find(match_key(a[i], skip == left_out.end() ? std::set<std::string>{} : skip->second));
    if (it == keys_b.end()) {
      out.only_a.push_back(i);
    } else {
      out.pairs.emplace_back(i, it->second);
      matched_b.insert(it->second);
    }
  }
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (!matched_b.count(j)) out.only_b.push_back(j);
  }
  return out;
}

}  // namespace mt
