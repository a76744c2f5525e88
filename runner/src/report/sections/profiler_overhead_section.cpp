#include "report/sections/profiler_overhead_section.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/contrast.h"
#include "report/sections/study_comparison.h"

namespace mt {
namespace {

// The same run but for the profiler: workload and every parameter equal.
bool twins(const Group& a, const Group& b) {
  return a.workload == b.workload && a.first().parameters == b.first().parameters;
}

}  // namespace

std::string render_profiler_overhead(const std::vector<const Group*>& profiled,
                                     const std::vector<const Group*>& unprofiled) {
  if (profiled.empty()) return "";
  std::string out = "## Profiler overhead\n\n";
  std::vector<ContrastRow> rows;
  for (const Group* p : profiled) {
    auto twin = std::find_if(unprofiled.begin(), unprofiled.end(), [&](const Group* u) { return twins(*p, *u); });
    if (twin == unprofiled.end()) continue;
    for (const auto& m : key_metrics(*p, **twin)) {
      auto a = p->sample(m.name).values, b = (*twin)->sample(m.name).values;
      if (a.empty() || b.empty()) continue;
      rows.push_back({study_pair_name(*p, **twin, false), p, *twin, m, contrast(a, b), std::nullopt, ""});
    }
  }
  if (rows.empty()) {
    return out +
           "No unprofiled study ran a profiled configuration with the same parameters, so the profiler's own "
           "cost is not measured here.\n\n";
  }
  rows = decide(std::move(rows));
  std::vector<double> overheads;
  std::string listed;
  for (const auto& r : rows) {
    if (r.metric.name != "tokens_per_sec" || !r.contrast.ratio) continue;
    overheads.push_back(1 - *r.contrast.ratio);
    listed += fmt::format("- {}: {} ({}).\n", r.pair, percent(overheads.back()), r.verdict);
  }
  std::string range;
  if (!overheads.empty()) {
    const std::string low = percent(*std::min_element(overheads.begin(), overheads.end()));
    const std::string high = percent(*std::max_element(overheads.begin(), overheads.end()));
    range = low == high ? ": " + low + " here" : fmt::format(": {} to {} here", low, high);
  }
  out += fmt::format(
      "Each profiled configuration against its unprofiled twin: the same workload and parameters, run by another "
      "study of the same campaign. Overhead = 1 − profiled ÷ unprofiled tokens/s{}. {}\n\n",
      range, verdict_rules(tested_count(rows)));
  out += listed.empty() ? "" : listed + "\n";
  out += render_contrasts(rows, {"profiled ÷ unprofiled, configuration", "profiled mean ± std (n)",
                                 "unprofiled mean ± std (n)", "profiled ÷ unprofiled"}) +
         "\n" + kCellLegend + "\n\n";
  return out;
}

}  // namespace mt
