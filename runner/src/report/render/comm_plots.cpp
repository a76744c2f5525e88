#include "report/render/comm_plots.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "experiment/metric_catalogue.h"
#include "report/model/comm_rows.h"
#include "stats.h"

namespace mt {
namespace {

// One operation in one variant, all its rank counts: the curves one chart holds.
struct OperationCurves {
  std::string operation, variant;
  std::vector<std::pair<int, const CommCurve*>> by_ranks;
};

// Every operation in every variant (in place and out of place, even and uneven splits), in the
// rows' order.
std::vector<OperationCurves> operations(const CommData& data) {
  std::vector<OperationCurves> out;
  for (const auto& [key, curve] : data.series) {
    const std::string& operation = key.operation;  // a lambda may not capture a structured binding (C++17)
    const std::string& variant = key.variant;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const OperationCurves& o) { return o.operation == operation && o.variant == variant; });
    if (it == out.end()) {
      out.push_back({key.operation, key.variant, {}});
      it = out.end() - 1;
    }
    it->by_ranks.emplace_back(key.ranks, &curve);
  }
  return out;
}

// "comm_all_gather" for an operation measured in one variant, "comm_all_gather_out_of_place" when
// it has several: file names stay what they were for the common case.
std::string file_stem(const std::vector<OperationCurves>& all, const OperationCurves& op) {
  const auto variants =
      std::count_if(all.begin(), all.end(), [&](const OperationCurves& o) { return o.operation == op.operation; });
  std::string stem = "comm_" + op.operation;
  if (variants < 2) return stem;
  stem += '_';
  for (char ch : op.variant) stem += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return stem;
}

// An uneven all-to-all moves a few bytes more than the sweep's size it stands for (1028 B for
// 1 KiB, 1136 B at 8 ranks): the power of two a size is at most 12.5 % above, else the size itself.
// The sweep's sizes are a factor of 2 or more apart, so no two of them share one.
double nominal_size(double bytes) {
  const double power = std::exp2(std::floor(std::log2(bytes)));
  return bytes - power <= 0.125 * power ? power : bytes;
}

using Measure = std::vector<double> CommPoint::*;

Plot chart(const CommData& data, const OperationCurves& op, Measure measure, const std::string& what,
           const std::string& unit, const std::string& file) {
  // Nominal sizes, so that curves of one uneven operation at different rank counts share them; the
  // label says "≈" where a curve's size was not exactly that.
  std::map<double, std::string> sizes;
  for (const auto& [ranks, curve] : op.by_ranks) {
    for (const auto& [bytes, points] : *curve) {
      auto [it, fresh] = sizes.try_emplace(nominal_size(bytes), comm_size_label(bytes));
      if (!fresh && it->second != comm_size_label(bytes)) it->second = "≈" + size_text(it->first);
    }
  }
  ChartSpec c{fmt::format("{} ({}): {} vs message size (mean ± std)", op.operation, op.variant, what),
              "message size",
              fmt::format("{} ({})", what, unit),
              {},
              {}};
  for (const auto& [bytes, label] : sizes) c.categories.push_back(label);
  bool any_oversubscribed = false;
  for (size_t study = 0; study < data.studies.size(); ++study) {
    for (size_t ri = 0; ri < op.by_ranks.size(); ++ri) {
      const auto& [ranks, curve] = op.by_ranks[ri];
      const bool oversubscribed = data.oversubscribes(ranks);
      ChartSeries s{fmt::format("{} ×{}{}", data.studies[study].label, ranks, oversubscribed ? " ⚠oversubscribed" : ""),
                    {},
                    {},
                    false,
                    int(study * op.by_ranks.size() + ri)};  // a colour for each line
      s.dotted = oversubscribed;
      bool any = false;
      for (const auto& size : sizes) {
        const double bytes = size.first;  // a lambda may not capture a structured binding (C++17)
        auto at = std::find_if(curve->begin(), curve->end(),
                               [&](const auto& entry) { return nominal_size(entry.first) == bytes; });
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

std::string comm_size_label(double bytes) {
  const double nominal = nominal_size(bytes);
  return nominal == bytes ? size_text(bytes) : "≈" + size_text(nominal);
}

PlotSet comm_plots(const std::vector<const Group*>& groups) {
  PlotSet out;
  const CommData data = collect_comm_rows(groups);
  const auto all = operations(data);
  for (const auto& op : all) {
    const std::string stem = file_stem(all, op);
    out.plots.push_back(chart(data, op, &CommPoint::busbw_gbps, "bus bandwidth", known_metric("busbw_gbps")->unit,
                              stem + "_busbw.svg"));
    out.plots.push_back(
        chart(data, op, &CommPoint::latency_us, "latency", known_metric("latency_us")->unit, stem + "_latency.svg"));
  }
  // A chart whose every series is empty says nothing, and one of a single size is no curve.
  out.plots.erase(std::remove_if(out.plots.begin(), out.plots.end(),
                                 [](const Plot& p) { return p.chart.series.empty() || p.chart.categories.size() < 2; }),
                  out.plots.end());
  return out;
}

}  // namespace mt
