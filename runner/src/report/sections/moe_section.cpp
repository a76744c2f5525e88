#include "report/sections/moe_section.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/sections/detail_table.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/render/series_names.h"
#include "report/render/svg_chart.h"

namespace mt {
namespace {

std::string metric_cell(const Group& g, const std::string& metric, int decimals) {
  return mean_std_cell(summarize(g.sample(metric).values), decimals);
}

std::string configuration_cell(const Group& g) {
  const bool oversubscribed = core_use(g).oversubscribed();
  return group_name(g) + (oversubscribed ? std::string(" ") + kOversubscribedMark : "");
}

// The largest error any run of the group saw, against its tolerance: the oracle passed in every
// run the table counts (a run that fails it exits 1 and is not a success).
std::string oracle_cell(const Group& g) {
  const auto errors = g.sample("max_abs_error").values, astray = g.sample("ids_wrong").values;
  if (errors.empty()) return "-";
  const double worst = *std::max_element(errors.begin(), errors.end());
  const double lost = astray.empty() ? 0 : *std::max_element(astray.begin(), astray.end());
  // Engines before the expert stamp did not check where a token was computed.
  const auto misrouted = g.sample("tokens_misrouted").values;
  const std::string routed =
      misrouted.empty() ? "" : fmt::format(", {} misrouted", *std::max_element(misrouted.begin(), misrouted.end()));
  return fmt::format("{} ids astray{}, max abs error {:.2g} (atol {})", lost, routed, worst, g.result_text("atol"));
}

// Mean over the group's runs of element `rank` of a per-rank array in the result.
double per_rank_mean(const Group& g, const std::vector<std::string>& path, std::size_t rank) {
  std::vector<double> values;
  for (const ReportTrial* t : g.succeeded) {
    const nlohmann::json* v = &t->result;
    for (const auto& key : path) v = v && v->is_object() && v->contains(key) ? &(*v)[key] : nullptr;
    if (v && v->is_array() && rank < v->size() && (*v)[rank].is_number()) values.push_back((*v)[rank].get<double>());
  }
  return values.empty() ? -1 : mean(values);
}

std::string per_rank_table(const std::vector<const Group*>& groups) {
  MarkdownTable table({{"configuration"},
                       {"rank", Align::Right},
                       {"tokens received", Align::Right},
                       {"dispatch ms", Align::Right},
                       {"compute ms", Align::Right},
                       {"combine ms", Align::Right}});
  for (const Group* g : groups) {
    for (std::size_t r = 0; r < static_cast<std::size_t>(g->ranks); ++r) {
      const double tokens = per_rank_mean(*g, {"tokens_received"}, r);
      if (tokens < 0) continue;  // an older result without per-rank figures
      auto ms = [&](const char* phase) {
        const double v = per_rank_mean(*g, {"per_rank_ms", phase}, r);
        return v < 0 ? std::string("-") : fixed(v, 2);
      };
      table.add_row(
          {group_name(*g), std::to_string(r), fixed(tokens, 0), ms("dispatch"), ms("compute"), ms("combine")});
    }
  }
  if (table.empty()) return "";
  return "**Per rank**, means over the repeats. Rank r holds expert r: the rank whose expert receives more "
         "tokens computes longer, and the others wait for it in the combine all-to-all, so their combine "
         "time grows by about the difference.\n\n" +
         table.render() + "\n";
}

}  // namespace

std::string render_moe_section(const std::vector<const Group*>& groups) {
  MarkdownTable table({{"configuration"},
                       {"tokens/rank", Align::Right},
                       {"top-k", Align::Right},
                       {"imbalance (max ÷ mean)", Align::Right},
                       {"dropped", Align::Right},
                       {"dispatch ms", Align::Right},
                       {"compute ms", Align::Right},
                       {"combine ms", Align::Right},
                       {"step ms", Align::Right},
                       {"tokens/s", Align::Right},
                       {"oracle"},
                       {"n", Align::Right}});
  bool oversubscribed = false;
  for (const Group* g : groups) {
    oversubscribed = oversubscribed || core_use(*g).oversubscribed();
    table.add_row({configuration_cell(*g), g->result_text("tokens_per_rank"), g->result_text("top_k"),
                   metric_cell(*g, "imbalance", 2), metric_cell(*g, "dropped_tokens", 0),
                   metric_cell(*g, "dispatch_ms", 2), metric_cell(*g, "compute_ms", 2),
                   metric_cell(*g, "combine_ms", 2), metric_cell(*g, "step_ms", 2),
                   metric_cell(*g, "tokens_per_sec", 0), oracle_cell(*g), g->n_text()});
  }
  std::string out =
      "## Mixture of experts\n\n"
      "One expert per rank (Linear d→4d, GELU, Linear 4d→d). Each iteration exchanges counts, sends every "
      "token to its expert in a variable-split all-to-all (dispatch), runs the experts (compute) and sends "
      "the outputs home (combine). Phase times are the slowest rank's mean per iteration, and a different rank "
      "can be the slowest in each phase (the rank with the busiest expert computes longest while the others wait "
      "for it in combine), so the phases can add up to more than the step; imbalance is the "
      "most tokens one expert received over the mean. Every run's output passed the oracle before its times "
      "counted: each token id came back to its position, and the combined output equals one process "
      "computing the same routing.\n\n" +
      table.render() + "\n" + kCellLegend + "\n";
  if (oversubscribed) out += std::string(kOversubscribedLegend) + "\n";
  return out + "\n" + per_rank_table(groups) + "\n";
}

PlotSet moe_plots(const std::vector<const Group*>& groups) {
  PlotSet out;
  ChartSpec c{"Mixture of experts: each rank's iteration (mean over repeats)",
              "configuration and rank",
              "time per iteration (ms)",
              {},
              {}};
  ChartSeries dispatch{"dispatch (all-to-all)", {}, {}, false, 0},
      compute{"compute (the rank's expert)", {}, {}, false, 1},
      combine{"combine (all-to-all, waiting for the slowest expert)", {}, {}, false, 3};
  const auto configs = distinct_configs(groups);
  for (const Group* g : groups) {
    for (std::size_t r = 0; r < static_cast<std::size_t>(g->ranks); ++r) {
      const double d = per_rank_mean(*g, {"per_rank_ms", "dispatch"}, r);
      const double k = per_rank_mean(*g, {"per_rank_ms", "compute"}, r);
      const double b = per_rank_mean(*g, {"per_rank_ms", "combine"}, r);
      if (d < 0 || k < 0 || b < 0) continue;  // an older result without per-rank times
      const std::string& config = configs.at(g);
      c.categories.push_back(fmt::format("{}{}rank {}", config, config.empty() ? "" : " ", r));
      dispatch.values.push_back(d);
      compute.values.push_back(k);
      combine.values.push_back(b);
    }
  }
  if (c.categories.empty()) return out;
  c.series = {dispatch, compute, combine};
  std::string svg = bar_chart_svg(c, true);
  out.plots.push_back({"moe_per_rank.svg", "Mixture of experts: each rank's iteration", std::move(c), std::move(svg)});
  return out;
}

}  // namespace mt
