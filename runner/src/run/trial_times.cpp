#include "run/trial_times.h"

#include <algorithm>
#include <map>

namespace mt {
namespace {

// Numbers each distinct key in order of first appearance.
std::vector<std::uint32_t> slots(const std::vector<TrialTimes::Kind>& kinds, std::string TrialTimes::Kind::*key,
                                 std::size_t& distinct) {
  std::map<std::string, std::uint32_t> seen;
  std::vector<std::uint32_t> out;
  out.reserve(kinds.size());
  for (const auto& kind : kinds) out.push_back(seen.emplace(kind.*key, std::uint32_t(seen.size())).first->second);
  distinct = seen.size();
  return out;
}

}  // namespace

TrialTimes::TrialTimes(std::size_t total, const std::vector<Kind>& kinds) : total_(total) {
  if (kinds.size() != total) return;
  std::size_t configurations = 0, families = 0;
  configuration_ = slots(kinds, &Kind::configuration, configurations);
  family_ = slots(kinds, &Kind::family, families);
  by_configuration_.resize(configurations);
  by_family_.resize(families);
}

void TrialTimes::record(std::size_t index, double seconds) {
  all_.sum += seconds;
  ++all_.n;
  if (index >= configuration_.size()) return;
  auto add = [&](Mean& m) {
    m.sum += seconds;
    ++m.n;
  };
  add(by_configuration_[configuration_[index]]);
  add(by_family_[family_[index]]);
}

std::optional<double> TrialTimes::expected(std::size_t index) const {
  if (index < configuration_.size()) {
    if (auto v = by_configuration_[configuration_[index]].value()) return v;
    if (auto v = by_family_[family_[index]].value()) return v;
  }
  return all_.value();
}

std::optional<double> TrialTimes::left(std::size_t current, double elapsed) const {
  if (!all_.n) return std::nullopt;
  if (current >= total_) return 0.0;
  double seconds = std::max(0.0, *expected(current) - elapsed);
  if (configuration_.empty()) return seconds + *all_.value() * double(total_ - current - 1);
  for (std::size_t i = current + 1; i < total_; ++i) seconds += *expected(i);
  return seconds;
}

}  // namespace mt
