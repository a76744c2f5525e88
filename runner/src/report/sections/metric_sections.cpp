#include "report/sections/metric_sections.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/sections/detail_table.h"
#include "report/render/markdown_table.h"

namespace mt {
namespace {

std::vector<std::string> metric_names(const Group& g) {
  std::set<std::string> names;
  for (const ReportTrial* t : g.succeeded) {
    for (const auto& [name, value] : t->metrics) {
      if (is_measurement(name)) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

std::string metrics_table(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  std::vector<Column> columns = {{"group"}, {"metric"}, {"mean ± std", Align::Right}, {"n", Align::Right}};
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  for (const Group* g : groups) {
    for (const auto& name : metric_names(*g)) {
      auto values = g->sample(name).values;
      std::vector<std::string> row = {group_name(*g), name,
                                      mean_std_cell(summarize(values), auto_decimals(mean(values))),
                                      std::to_string(values.size())};
      if (provenance.mixed()) row.push_back(provenance.stack_cell(*g));
      table.add_row(std::move(row));
    }
  }
  if (table.empty()) return "";
  std::string out;
  if (provenance.mixed())
    out += "**Mixed provenance (`--allow-mixed`): rows come from different builds; see the `stack` column.**\n\n";
  return out + table.render() + "\n" + kCellLegend + "\n\n";
}

}  // namespace

std::string render_metric_section(const std::string& title, const std::string& intro,
                                  const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  return fmt::format("## {}\n\n{}\n\n", title, intro) + metrics_table(groups, provenance);
}

std::string render_fault_section(const std::vector<ReportTrial>& trials, const std::vector<const Group*>& groups,
                                 const ProvenanceAnalysis& provenance) {
  // Outcomes per configuration, in order of first appearance; failing trials count here too.
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, int>> outcomes;
  std::map<std::string, std::string> names;
  for (const auto& t : trials) {
    if (trial_kind(t) != "fault") continue;
    if (!outcomes.count(t.group_key)) {
      order.push_back(t.group_key);
      std::string config = trial_config(t);
      names[t.group_key] = fmt::format("{}{}{} {} ×{}", t.study, config.empty() ? "" : " ", config,
                                       t.strategy.empty() ? t.workload : t.strategy, t.ranks);
    }
    ++outcomes[t.group_key][t.succeeded() ? "succeeded" : t.latest_state.value_or("not run")];
  }
  MarkdownTable table({{"scenario"}, {"outcomes"}});
  for (const auto& key : order) {
    std::string text;
    for (const auto& [state, n] : outcomes[key]) text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, state);
    table.add_row({names[key], text});
  }
  return "## Fault scenarios\n\nTrials that inject a fault (a `fault*` parameter). A failed trial here may be the "
         "expected outcome; the failures section lists each with its rank, step and log.\n\n" +
         table.render() + "\n" + metrics_table(groups, provenance);
}

}  // namespace mt
