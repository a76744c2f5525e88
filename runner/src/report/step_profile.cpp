#include "report/step_profile.h"

#include <algorithm>
#include <functional>

namespace mt {
namespace {

const nlohmann::json* profile_of(const ReportTrial& t) {
  if (!t.result.is_object()) return nullptr;
  auto it = t.result.find("profile");
  return it != t.result.end() && it->is_object() ? &*it : nullptr;
}

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

}  // namespace

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
    r.step_ms = ranks_mean(*g, "step_ms");
    r.data_ms = ranks_mean(*g, "data_ms");
    r.forward_backward_ms = ranks_mean(*g, "forward_backward_ms");
    r.optimizer_ms = ranks_mean(*g, "optimizer_ms");
    r.communication_ms = ranks_mean(*g, "communication_ms");
    r.exposed_ms = ranks_mean(*g, "exposed_communication_ms");
    r.overlap_fraction = ranks_mean(*g, "overlap_fraction");
    r.collectives = ranks_mean(*g, "collectives_per_step");
    r.step_min_ms = metric(*g, "profile.step_ms_across_ranks.min");
    r.step_p50_ms = metric(*g, "profile.step_ms_across_ranks.p50");
    r.step_max_ms = metric(*g, "profile.step_ms_across_ranks.max");
    r.straggler_ratio = metric(*g, "profile.straggler_ratio");
    r.buckets = metric(*g, "buckets.count");
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
