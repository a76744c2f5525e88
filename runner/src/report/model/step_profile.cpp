#include "report/model/step_profile.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace mt {
namespace {

// The mean over ranks of each rank's per-step mean of `field`; nullopt when no rank reports it.
std::optional<double> rank_mean(const nlohmann::json& profile, const char* field) {
  auto ranks = profile.find("ranks");
  if (ranks == profile.end() || !ranks->is_array()) return std::nullopt;
  double sum = 0;
  int n = 0;
  for (const auto& rank : *ranks) {
    if (!rank.is_object() || !rank.contains(field) || !rank[field].is_object()) continue;
    const auto& stats = rank[field];
    if (!stats.contains("mean") || !stats["mean"].is_number()) continue;
    sum += stats["mean"].get<double>();
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

Summary over_trials(const Group& g, const std::function<std::optional<double>(const ReportTrial&)>& value) {
  std::vector<double> values;
  for (const ReportTrial* t : g.succeeded) {
    if (auto v = value(*t)) values.push_back(*v);
  }
  return summarize(values);
}

Summary ranks_mean(const Group& g, const char* field) {
  return over_trials(g, [&](const ReportTrial& t) -> std::optional<double> {
    const nlohmann::json* p = profile_of(t);
    return p ? rank_mean(*p, field) : std::nullopt;
  });
}

Summary metric(const Group& g, const std::string& name) { return summarize(g.sample(name).values); }

std::optional<double> largest_bucket_mib(const Group& g) {
  std::optional<double> largest;
  for (const ReportTrial* t : g.succeeded) {
    if (!t->result.is_object() || !t->result.contains("buckets")) continue;
    const auto& buckets = t->result["buckets"];
    if (!buckets.is_object() || !buckets.contains("bytes") || !buckets["bytes"].is_array()) continue;
    for (const auto& b : buckets["bytes"]) {
      if (b.is_number()) largest = std::max(largest.value_or(0), b.get<double>() / (1024.0 * 1024.0));
    }
  }
  return largest;
}

// Each rank's per-step statistics in the profile summary, averaged over ranks.
constexpr std::pair<Summary StepProfileRow::*, const char*> kRankFields[] = {
    {&StepProfileRow::step_ms, "step_ms"},
    {&StepProfileRow::data_ms, "data_ms"},
    {&StepProfileRow::forward_backward_ms, "forward_backward_ms"},
    {&StepProfileRow::optimizer_ms, "optimizer_ms"},
    {&StepProfileRow::communication_ms, "communication_ms"},
    {&StepProfileRow::exposed_ms, "exposed_communication_ms"},
    {&StepProfileRow::overlap_fraction, "overlap_fraction"},
    {&StepProfileRow::collectives, "collectives_per_step"},
};

// Whole-run figures of the result, as stored metrics.
constexpr std::pair<Summary StepProfileRow::*, const char*> kResultFields[] = {
    {&StepProfileRow::step_min_ms, "profile.step_ms_across_ranks.min"},
    {&StepProfileRow::step_p50_ms, "profile.step_ms_across_ranks.p50"},
    {&StepProfileRow::step_max_ms, "profile.step_ms_across_ranks.max"},
    {&StepProfileRow::straggler_ratio, "profile.straggler_ratio"},
    {&StepProfileRow::buckets, "buckets.count"},
};

}  // namespace

const nlohmann::json* profile_of(const ReportTrial& t) {
  if (!t.result.is_object()) return nullptr;
  auto it = t.result.find("profile");
  return it != t.result.end() && it->is_object() ? &*it : nullptr;
}

bool is_profiled(const Group& group) {
  return std::any_of(group.succeeded.begin(), group.succeeded.end(),
                     [](const ReportTrial* t) { return profile_of(*t) != nullptr; });
}

std::vector<std::string> trace_files(const ReportTrial& trial) {
  std::vector<std::string> out;
  const std::string prefix = std::string(kProfileDirName) + "/rank_", suffix = ".trace.json";
  for (const auto& name : trial.files) {  // sorted by name: rank order, the ranks being zero-padded
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

StepParts StepProfileRow::parts() const {
  StepParts p;
  p.data = data_ms.mean;
  p.exposed = exposed_ms.mean;
  p.hidden = std::max(0.0, communication_ms.mean - exposed_ms.mean);
  const double carved = p.hidden + p.exposed;
  const double from_compute = std::min(forward_backward_ms.mean, carved);
  p.compute = forward_backward_ms.mean - from_compute;
  p.optimizer = std::max(0.0, optimizer_ms.mean - (carved - from_compute));
  p.other = std::max(0.0, step_ms.mean - data_ms.mean - forward_backward_ms.mean - optimizer_ms.mean);
  return p;
}

std::vector<StepProfileRow> step_profile_rows(const std::vector<const Group*>& groups) {
  std::vector<StepProfileRow> rows;
  for (const Group* g : groups) {
    StepProfileRow r;
    r.group = g;
    for (const auto& [member, field] : kRankFields) r.*member = ranks_mean(*g, field);
    for (const auto& [member, name] : kResultFields) r.*member = metric(*g, name);
    r.largest_bucket_mib = largest_bucket_mib(*g);
    for (const ReportTrial* t : g->succeeded) {
      auto traces = trace_files(*t);
      if (traces.empty()) continue;
      r.traced = t;
      r.traces = std::move(traces);
      break;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace mt
