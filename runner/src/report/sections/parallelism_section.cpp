#include "report/sections/parallelism_section.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "json_fields.h"
#include "report/render/cells.h"
#include "report/sections/detail_table.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/render/series_names.h"

namespace mt {
namespace {

std::string yes_no_cell(int yes, int total) {
  if (total == 0) return "-";
  return yes == total ? fmt::format("yes ({}/{})", yes, total) : fmt::format("**no** ({}/{})", yes, total);
}

// One tensor's check over a group's runs: the worst error and how many runs passed it.
struct TensorCheck {
  std::string layer, tensor;
  double worst_error = 0;
  int passes = 0;
};

// In the order the results list them.
std::vector<TensorCheck> tensor_checks(const Group& g) {
  std::vector<TensorCheck> out;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const ReportTrial* t : g.succeeded) {
    if (!t->result.contains("checks") || !t->result["checks"].is_array()) continue;
    for (const auto& c : t->result["checks"]) {
      const std::pair<std::string, std::string> key{text_field(c, "layer", "?"), text_field(c, "tensor", "?")};
      auto [it, fresh] = index.try_emplace(key, out.size());
      if (fresh) out.push_back({key.first, key.second});
      TensorCheck& check = out[it->second];
      check.worst_error = std::max(check.worst_error, number_field(c, "max_abs_error").value_or(0.0));
      check.passes += flag_field(c, "pass") ? 1 : 0;
    }
  }
  return out;
}

std::string oversubscribed_note(const std::vector<const Group*>& groups) {
  for (const Group* g : groups)
    if (core_use(*g).oversubscribed()) return std::string(kOversubscribedLegend) + "\n\n";
  return "";
}

}  // namespace

std::string render_tp_section(const std::vector<const Group*>& groups) {
  // One row per group, layer and tensor: the worst error over the runs, and whether all passed.
  MarkdownTable table(
      {{"configuration"}, {"layer"}, {"tensor"}, {"max abs error", Align::Right}, {"atol", Align::Right}, {"passed"}});
  for (const Group* g : groups) {
    for (const TensorCheck& c : tensor_checks(*g))
      table.add_row({group_name(*g), c.layer, c.tensor, fmt::format("{:.2g}", c.worst_error), g->result_text("atol"),
                     yes_no_cell(c.passes, static_cast<int>(g->succeeded.size()))});
  }
  if (table.empty()) return "";
  return "## Tensor and sequence parallelism\n\n"
         "Each layer split across the ranks against the same layer computed whole in one process: the output, "
         "the input gradient and every weight and bias gradient, largest absolute difference over all runs. "
         "column: output dimension split; row: input dimension split, partial outputs all-reduced; mlp: column "
         "then row with no gather between; sp_mlp: activations split along the sequence, all-gathered before "
         "and reduce-scattered after the tensor-parallel region.\n\n" +
         table.render() + "\n" + oversubscribed_note(groups);
}

std::string render_groups_section(const std::vector<const Group*>& groups) {
  MarkdownTable dims({{"configuration"},
                      {"dimension"},
                      {"group size", Align::Right},
                      {"rank 0's group"},
                      {"collectives per step", Align::Right},
                      {"ms per step", Align::Right},
                      {"members checked"}});
  MarkdownTable hazard(
      {{"configuration"}, {"mis-ordered collectives completed without error"}, {"the checksum caught the swap"}});
  for (const Group* g : groups) {
    for (const char* dim : {"tp", "pp", "dp"}) {
      const std::string prefix = std::string("groups.") + dim + ".";
      int ok = 0;
      for (const ReportTrial* t : g->succeeded)
        ok += flag_field(object_field(object_field(t->result, "groups"), dim), "members_ok");
      dims.add_row({group_name(*g), dim, g->result_text(prefix + "size"), g->result_text(prefix + "members_of_rank_0"),
                    g->result_text(prefix + "collectives_per_step"),
                    mean_std_cell(summarize(g->sample(prefix + "ms_per_step").values), 3),
                    yes_no_cell(ok, static_cast<int>(g->succeeded.size()))});
    }
    int injected = 0, completed = 0, caught = 0;
    for (const ReportTrial* t : g->succeeded) {
      const nlohmann::json& h = object_field(t->result, "hazard");
      if (!flag_field(h, "injected")) continue;
      ++injected;
      completed += flag_field(h, "completed_without_error");
      caught += flag_field(h, "detected_by_checksum");
    }
    if (injected > 0) hazard.add_row({group_name(*g), yes_no_cell(completed, injected), yes_no_cell(caught, injected)});
  }
  if (dims.empty()) return "";
  std::string out =
      "## Process groups\n\n"
      "The ranks as a TP × PP × DP grid in the given mapping order, one sub-communicator per group. Per step, "
      "tensor-parallel groups run several all-reduces, pipeline and data-parallel groups one each; times are "
      "the slowest rank's mean per step. Every group's all-reduce is checked against the sum its members "
      "must give.\n\n" +
      dims.render() + "\n" + kCellLegend + "\n\n" + oversubscribed_note(groups);
  if (!hazard.empty())
    out +=
        "**The collective-order hazard**: two same-shaped all-reduces issued in opposite order on two ranks of "
        "a group complete without any error, with their data swapped; only a per-tensor checksum notices.\n\n" +
        hazard.render() + "\n";
  return out;
}

namespace {

// Per layer, the worst tensor's error as a fraction of the tolerance: how far each check is from failing.
std::optional<Plot> tp_margin_plot(const std::vector<const Group*>& groups) {
  ChartSpec c{"Tensor parallelism: worst error ÷ tolerance per layer",
              "layer",
              "largest absolute error ÷ atol (1 fails)",
              {},
              {}};
  const auto configs = distinct_configs(groups);
  std::vector<std::map<std::string, double>> margins;
  for (const Group* g : groups) {
    if (g->succeeded.empty()) continue;
    const auto& result = g->first().result;
    const double atol = result.contains("atol") && result["atol"].is_number() ? result["atol"].get<double>() : 0.0;
    if (atol <= 0) continue;
    std::map<std::string, double> worst;
    for (const TensorCheck& t : tensor_checks(*g)) {
      if (std::find(c.categories.begin(), c.categories.end(), t.layer) == c.categories.end())
        c.categories.push_back(t.layer);
      worst[t.layer] = std::max(worst[t.layer], t.worst_error / atol);
    }
    if (worst.empty()) continue;
    c.series.push_back({configs.at(g).empty() ? group_name(*g) : configs.at(g), {}, {}});
    margins.push_back(std::move(worst));
  }
  if (c.series.empty()) return std::nullopt;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    for (const auto& layer : c.categories) {
      const auto it = margins[i].find(layer);
      c.series[i].values.push_back(it == margins[i].end() ? std::nullopt : std::optional<double>(it->second));
    }
  }
  std::string svg = bar_chart_svg(c, false);
  return Plot{"tp_error_margin.svg", "Tensor parallelism: error against tolerance", std::move(c), std::move(svg)};
}

// Per grid dimension, each mapping order's time per step, mean ± std over repeats.
std::optional<Plot> groups_time_plot(const std::vector<const Group*>& groups) {
  ChartSpec c{"Process groups: collectives' time per step by dimension",
              "grid dimension",
              "slowest rank, ms per step (mean ± std)",
              {"tp", "pp", "dp"},
              {}};
  const auto configs = distinct_configs(groups);
  for (const Group* g : groups) {
    ChartSeries series{configs.at(g).empty() ? group_name(*g) : configs.at(g), {}, {}};
    bool any = false;
    for (const auto& dim : c.categories) {
      const Summary s = summarize(g->sample("groups." + dim + ".ms_per_step").values);
      if (s.n == 0) {
        series.values.push_back(std::nullopt);
        series.errors.push_back(0);
        continue;
      }
      any = true;
      series.values.push_back(s.mean);
      series.errors.push_back(s.n > 1 ? s.std : 0);
    }
    if (any) c.series.push_back(std::move(series));
  }
  if (c.series.empty()) return std::nullopt;
  std::string svg = bar_chart_svg(c, false);
  return Plot{"groups_time_per_step.svg", "Process groups: time per step by dimension", std::move(c), std::move(svg)};
}

}  // namespace

PlotSet parallelism_plots(const std::vector<const Group*>& tp_groups, const std::vector<const Group*>& grid_groups) {
  PlotSet out;
  if (auto p = tp_margin_plot(tp_groups)) out.plots.push_back(std::move(*p));
  if (auto p = groups_time_plot(grid_groups)) out.plots.push_back(std::move(*p));
  return out;
}

}  // namespace mt
