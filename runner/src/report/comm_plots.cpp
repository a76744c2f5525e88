#include "report/comm_plots.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/comm_rows.h"
#include "stats.h"

namespace mt {
namespace {

// One operation in one variant, all its rank counts: the curves one chart holds.
struct OperationCurves {
  std::string operation, variant;
  std::vector<std::pair<int, const CommCurve*>> by_ranks;
};

std::vector<OperationCurves> operations(const CommData& data) {
  std::vector<OperationCurves> out;
  for (const auto& [key, curve] : data.series) {
    const std::string& operation = key.operation;  // a lambda may not capture a structured binding (C++17)
    auto it = std::find_if(out.begin(), out.end(), [&](const OperationCurves& o) { return o.operation == operation; });
    if (it == out.end()) {
      out.push_back({key.operation, key.variant, {}});
      it = out.end() - 1;
    }
    if (it->variant == key.variant) it->by_ranks.emplace_back(key.ranks, &curve);  // the first variant only
  }
  return out;
}

using Measure = std::vector<double> CommPoint::*;

Plot chart(const CommData& data, const OperationCurves& op, Measure measure, const std::string& what,
           const std::string& unit, const std::string& file) {
  std::set<double> sizes;
  for (const auto& [ranks, curve] : op.by_ranks) {
    for (const auto& [bytes, points] : *curve) sizes.insert(bytes);
  }
  ChartSpec c{fmt::format("{} ({}): {} vs message size (mean ± std)", op.operation, op.variant, what),
              "message size",
              fmt::format("{} ({})", what, unit),
              {},
              {}};
  for (double bytes : sizes) c.categories.push_back(size_text(bytes));
  bool any_oversubscribed = false;
  for (size_t study = 0; study < data.studies.size(); ++study) {
    for (size_t ri = 0; ri < op.by_ranks.size(); ++ri) {
      const auto& [ranks, curve] = op.by_ranks[ri];
      const bool oversubscribed = data.oversubscribed.count(ranks) && data.oversubscribed.at(ranks);
      ChartSeries s{fmt::format("{} ×{}{}", data.studies[study].label, ranks, oversubscribed ? " ⚠oversubscribed" : ""),
                    {},
                    {},
                    false,
                    int(study * op.by_ranks.size() + ri)};  // a colour for each line
      s.dotted = oversubscribed;
      bool any = false;
      for (double bytes : sizes) {
        auto at = curve->find(bytes);
        const CommPoint* point = nullptr;
        if (at != curve->end()) {
          auto p = at->second.find(study);
          if (p != at->second.end() && !(p->second.*measure).empty()) point = &p->second;
        }
        if (!point) {
          s.values.push_back(std::nullopt);
          s.errors.push_back(0);
          continue;
        }
        const Summary sum = summarize(point->*measure);
        s.values.push_back(sum.mean);
        s.errors.push_back(sum.n > 1 ? sum.std : 0);
        any = true;
      }
      if (!any) continue;
      any_oversubscribed = any_oversubscribed || oversubscribed;
      c.series.push_back(std::move(s));
    }
  }
  c.log_y = true;
  if (any_oversubscribed) c.title += " — dotted: oversubscribed";
  std::string svg = line_chart_svg(c);
  return {file, fmt::format("{} ({}): {} vs message size", op.operation, op.variant, what), std::move(c),
          std::move(svg)};
}

}  // namespace

PlotSet comm_plots(const std::vector<const Group*>& groups) {
  PlotSet out;
  const CommData data = collect_comm_rows(groups);
  for (const auto& op : operations(data)) {
    out.plots.push_back(
        chart(data, op, &CommPoint::busbw_gbps, "bus bandwidth", "GB/s", "comm_" + op.operation + "_busbw.svg"));
    out.plots.push_back(
        chart(data, op, &CommPoint::latency_us, "latency", "µs", "comm_" + op.operation + "_latency.svg"));
  }
  // A chart whose every series is empty says nothing, and one of a single size is no curve.
  out.plots.erase(std::remove_if(out.plots.begin(), out.plots.end(),
                                 [](const Plot& p) { return p.chart.series.empty() || p.chart.categories.size() < 2; }),
                  out.plots.end());
  return out;
}

}  // namespace mt
