#include "report/study_comparison.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "report/cells.h"
#include "report/contrast.h"
#include "report/markdown_table.h"

namespace mt {
namespace {

// What a configuration is, apart from the study that ran it.
using ConfigurationKey = std::tuple<std::string, std::string, int, std::string>;

ConfigurationKey configuration(const Group& g) { return {g.kind, g.strategy, g.ranks, g.config}; }

std::string pair_name(const Group& first, const Group& second) {
  std::string name = fmt::format("{} ÷ {}, {} ×{}", first.study, second.study, first.strategy, first.ranks);
  if (!first.config.empty()) name += " " + first.config;
  return name;
}

}  // namespace

std::string render_study_comparison(const std::vector<Group>& groups) {
  // Groups by configuration, in report order; studies in the order the experiment lists them.
  std::vector<ConfigurationKey> order;
  std::map<ConfigurationKey, std::vector<const Group*>> by_configuration;
  for (const auto& g : groups) {
    auto& list = by_configuration[configuration(g)];
    if (list.empty()) order.push_back(configuration(g));
    list.push_back(&g);
  }

  MarkdownTable table({{"studies, configuration"}, {"metric"}, {"first mean ± std (n)", Align::Right},
                       {"second mean ± std (n)", Align::Right}, {"first ÷ second", Align::Right},
                       {"p", Align::Right}, {"verdict"}});
  for (const auto& key : order) {
    const auto& list = by_configuration[key];
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        const Group &first = *list[i], &second = *list[j];
        if (first.study == second.study) continue;
        for (const auto& m : key_metrics(first, second)) {
          auto a = first.sample(m.name).values, b = second.sample(m.name).values;
          if (a.empty() || b.empty()) continue;
          const Contrast c = contrast(a, b, m.decimals);
          table.add_row({pair_name(first, second), m.name, c.a_cell, c.b_cell, c.ratio, c.p, c.verdict});
        }
      }
    }
  }
  if (table.empty()) return "";
  return fmt::format(
      "## Studies compared\n\n"
      "Groups that differ only in their study (the same strategy, ranks and other parameters) ran one "
      "configuration through different implementations or set-ups. The first study is the one the "
      "experiment lists first. p is the two-sided Welch t-test (unequal variances); a difference with "
      "p ≥ {:.2f} is marked *within noise*, and it needs two successful repeats a side.\n\n{}\n{}\n\n",
      kNoiseThreshold, table.render(), kCellLegend);
}

}  // namespace mt
