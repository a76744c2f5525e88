#include "report/contrast.h"

#include <set>

#include <fmt/format.h>

#include "report/cells.h"
#include "stats.h"

namespace mt {
namespace {

std::string sample_cell(const Summary& s, int decimals) {
  if (s.n == 0) return "-";
  return fmt::format("{} ({})", mean_std_cell(s, decimals), s.n);
}

}  // namespace

std::vector<KeyMetric> key_metrics(const Group& a, const Group& b) {
  if (a.kind == "train") return {{"tokens_per_sec", 0}, {"step_time_ms", 2}, {"peak_memory_mb", 1}};
  if (a.kind == "comm") return {{"latency_us", 2}, {"algbw_gbps", 2}};
  std::set<std::string> names_a, both;
  for (const ReportTrial* t : a.succeeded) {
    for (const auto& [name, v] : t->metrics) names_a.insert(name);
  }
  for (const ReportTrial* t : b.succeeded) {
    for (const auto& [name, v] : t->metrics) {
      if (names_a.count(name) && name != "schema_version" && name != "world_size") both.insert(name);
    }
  }
  std::vector<KeyMetric> out;
  for (const auto& name : both) out.push_back({name, 2});
  return out;
}

Contrast contrast(const std::vector<double>& a, const std::vector<double>& b, int decimals) {
  const Summary sa = summarize(a), sb = summarize(b);
  Contrast out;
  out.a_cell = sample_cell(sa, decimals);
  out.b_cell = sample_cell(sb, decimals);
  out.ratio = sa.n && sb.n && sb.mean != 0 ? fixed(sa.mean / sb.mean, 3) : "-";
  const auto test = welch_t_test(a, b);
  out.p = !test ? "-" : test->p < 0.001 ? "< 0.001" : fixed(test->p, 3);
  out.verdict = !test ? "too few repeats" : test->p >= kNoiseThreshold ? "within noise" : "differs";
  return out;
}

}  // namespace mt
