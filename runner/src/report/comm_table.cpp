#include "report/comm_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/cells.h"
#include "report/comm_rows.h"
#include "report/comm_rows_section.h"
#include "report/detail_table.h"
#include "report/markdown_table.h"

namespace mt {
namespace {

std::string operation(const Group& g) {
  std::string op = g.result_text("operation");
  return op.empty() ? g.first().param("operation", "?") : op;
}

double message_bytes(const Group& g) {
  auto values = g.sample("bytes").values;
  if (!values.empty()) return values[0];
  return std::atof(g.first().param("bytes", "0").c_str());
}

}  // namespace

std::optional<double> busbw_factor(const std::string& op, int ranks) {
  double n = ranks;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1) / n;
  if (op == "broadcast" || op == "reduce") return 1.0;
  return std::nullopt;
}

namespace {

// One measurement per trial: the result's top-level operation, bytes, latency, algbw and wrong values.
std::string render_one_per_trial(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  std::vector<const Group*> sorted = groups;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Group* a, const Group* b) {
    return std::make_tuple(operation(*a), a->ranks, message_bytes(*a), a->label()) <
           std::make_tuple(operation(*b), b->ranks, message_bytes(*b), b->label());
  });
  std::vector<Column> columns = {{"operation"}, {"ranks", Align::Right}, {"configuration"}, {"bytes", Align::Right},
                                 {"latency µs", Align::Right}, {"algbw GB/s", Align::Right},
                                 {"busbw GB/s", Align::Right}, {"wrong values", Align::Right}, {"n", Align::Right}};
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  for (const Group* g : sorted) {
    std::string op = operation(*g);
    Summary algbw = summarize(g->sample("algbw_gbps").values);
    std::string busbw = "-";
    if (auto factor = busbw_factor(op, g->ranks); factor && algbw.n) {
      std::vector<double> scaled;
      for (double v : g->sample("algbw_gbps").values) scaled.push_back(v * *factor);
      busbw = mean_std_cell(summarize(scaled), 2);
    }
    auto wrong = g->sample("wrong_values").values;
    std::string wrong_text = "-";
    if (!wrong.empty()) {
      double worst = *std::max_element(wrong.begin(), wrong.end());
      wrong_text = worst == 0 ? "0" : fmt::format("{} ✗", fixed(worst, 0));
    }
    std::vector<std::string> row = {op, std::to_string(g->ranks), g->label(), fixed(message_bytes(*g), 0),
                                    mean_std_cell(summarize(g->sample("latency_us").values), 2),
                                    mean_std_cell(algbw, 2), busbw, wrong_text, g->n_text()};
    if (provenance.mixed()) row.push_back(provenance.stack_cell(*g));
    table.add_row(std::move(row));
  }
  std::string out;
  if (provenance.mixed()) out += "**Mixed provenance (`--allow-mixed`): rows come from different builds; see the `stack` column.**\n\n";
  out += table.render();
  out += fmt::format(
      "\n{}\n\n- busbw = algbw × factor (nccl-tests): all_reduce 2(n−1)/n; all_gather, reduce_scatter, all_to_all "
      "(n−1)/n; broadcast 1; n = ranks.\n- wrong values is the largest count of wrong output elements over the "
      "repeats; anything but 0 (marked ✗) means the timing of that row is not to be trusted.\n\n",
      kCellLegend);
  out += render_detail_table(sorted, catalogue_specs({"latency_us", "algbw_gbps"}));
  return out;
}

}  // namespace

std::string render_comm_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  std::vector<const Group*> with_rows, one_per_trial;
  for (const Group* g : groups) (has_result_rows(*g) ? with_rows : one_per_trial).push_back(g);
  std::string out = "## Communication\n\n";
  if (!with_rows.empty()) out += render_comm_rows(with_rows, provenance);
  if (!with_rows.empty() && !one_per_trial.empty()) out += "### One measurement per trial\n\n";
  if (!one_per_trial.empty()) out += render_one_per_trial(one_per_trial, provenance);
  return out;
}

}  // namespace mt
