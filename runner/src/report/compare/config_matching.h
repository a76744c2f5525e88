#pragma once
// Which configurations of two campaigns are "the same" for a comparison. A configuration is a
// study and its resolved parameters. Within each study both campaigns ran, a parameter that holds
// one value in A and another in B (bucket_cap_mb 25 → 50) is what the comparison is about: it is
// left out of the match and reported as changed. Every other parameter must agree. `--match P`
// keeps P in the match even so; `--ignore P` leaves it out even when several values ran.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mt {

struct Configuration {
  std::string study;
  std::map<std::string, std::string> params;  // every resolved parameter
};

struct MatchRules {
  std::set<std::string> match;   // always part of the match
  std::set<std::string> ignore;  // never part of it
};

// A parameter left out of the match whose values differ between the campaigns.
struct ParameterChange {
  std::string study;
  std::string name;
  std::string a;  // its values in A, joined with '/'; "(not set)" where a configuration lacks it
  std::string b;
};

struct ConfigurationMatch {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // indices into a and b, in a's order
  std::vector<std::size_t> only_a;
  std::vector<std::size_t> only_b;
  std::vector<ParameterChange> changed;
  // Per study, the parameters still matched whose values differ between the campaigns: what tells
  // a configuration found in one campaign only from those of the other.
  std::map<std::string, std::set<std::string>> distinguishing;
};

// Throws RunnerError (usage) when a --match/--ignore name is no parameter of any configuration, or
// names both. Given every configuration the campaigns planned, also those without figures (failed,
// disturbed, not run): a parameter they alone have is not a typo.
void check_named_parameters(const std::vector<Configuration>& a, const std::vector<Configuration>& b,
                            const MatchRules& rules);

// Throws RunnerError (usage) when leaving parameters out makes two configurations of one campaign
// indistinguishable. The names in `rules` are not checked here (check_named_parameters).
ConfigurationMatch match_configurations(const std::vector<Configuration>& a, const std::vector<Configuration>& b,
                                        const MatchRules& rules);

// "bucket_cap_mb=25 lr=0.1": the named parameters of one configuration (those it has), in name order.
std::string parameter_text(const Configuration& configuration, const std::set<std::string>& names);

}  // namespace mt
