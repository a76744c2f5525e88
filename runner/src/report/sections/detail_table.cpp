#include "report/sections/detail_table.h"

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "experiment/metric_catalogue.h"
#include "stats.h"

namespace mt {

std::vector<MetricSpec> catalogue_specs(const std::vector<std::string>& names) {
  std::vector<MetricSpec> out;
  for (const auto& name : names) {
    auto info = known_metric(name);
    out.push_back(info ? MetricSpec{info->name, info->title, info->decimals} : MetricSpec{name, name, 2});
  }
  return out;
}

std::string group_name(const Group& g) {
  std::string what = g.strategy.empty() ? fmt::format("×{}", g.ranks) : fmt::format("{} ×{}", g.strategy, g.ranks);
  return fmt::format("{} {}", g.label(), what);
}

std::string render_detail_table(const std::vector<const Group*>& groups, const std::vector<MetricSpec>& metrics) {
  MarkdownTable table({{"group"},
                       {"metric"},
                       {"n", Align::Right},
                       {"mean", Align::Right},
                       {"std", Align::Right},
                       {"min", Align::Right},
                       {"max", Align::Right},
                       {"95% CI", Align::Right},
                       {"CV", Align::Right},
                       {"outliers (MAD score)"}});
  for (const Group* g : groups) {
    for (const auto& m : metrics) {
      Sample sample = g->sample(m.name);
      if (sample.values.empty()) continue;
      Summary s = summarize(sample.values);
      std::string n = std::to_string(s.n) + (s.n < 3 ? std::string(" ") + kFewRepeatsMark : "");
      std::string outliers;
      auto scores = mad_scores(sample.values);
      for (size_t i : s.outliers) {
        outliers +=
            fmt::format("{}{} = {} ({})", outliers.empty() ? "" : ", ", code(short_id(sample.trials[i]->identity)),
                        fixed(sample.values[i], m.decimals), fixed(scores[i], 1));
      }
      table.add_row({group_name(*g), m.title, n, fixed(s.mean, m.decimals), s.n > 1 ? fixed(s.std, m.decimals) : "-",
                     fixed(s.min, m.decimals), fixed(s.max, m.decimals), interval_cell(s.ci95, m.decimals),
                     optional_percent(s.cv), outliers.empty() ? "-" : outliers});
    }
  }
  if (table.empty()) return "";
  return "<details><summary>Statistics per metric: n, mean, sample std, min, max, 95% confidence interval "
         "(Student t), coefficient of variation, outliers</summary>\n\n" +
         table.render() + "\n</details>\n\n";
}

}  // namespace mt
