#include "report/parallelism_section.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/cells.h"
#include "report/detail_table.h"
#include "report/machine_context.h"
#include "report/markdown_table.h"

namespace mt {
namespace {

std::string yes_no_cell(int yes, int total) {
  if (total == 0) return "-";
  return yes == total ? fmt::format("yes ({}/{})", yes, total) : fmt::format("**no** ({}/{})", yes, total);
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
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::pair<double, int>> worst;  // error, passes
    for (const ReportTrial* t : g->succeeded) {
      if (!t->result.contains("checks") || !t->result["checks"].is_array()) continue;
      for (const auto& c : t->result["checks"]) {
        const std::pair<std::string, std::string> key{c.value("layer", "?"), c.value("tensor", "?")};
        if (!worst.count(key)) order.push_back(key), worst[key] = {0.0, 0};
        auto& [error, passes] = worst[key];
        error = std::max(error, c.value("max_abs_error", 0.0));
        passes += c.value("pass", false) ? 1 : 0;
      }
    }
    for (const auto& key : order) {
      const auto& [error, passes] = worst[key];
      table.add_row({group_name(*g), key.first, key.second, fmt::format("{:.2g}", error), g->result_text("atol"),
                     yes_no_cell(passes, static_cast<int>(g->succeeded.size()))});
    }
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
        ok += t->result.value("groups", nlohmann::json::object())
                  .value(dim, nlohmann::json::object())
                  .value("members_ok", false);
      dims.add_row({group_name(*g), dim, g->result_text(prefix + "size"), g->result_text(prefix + "members_of_rank_0"),
                    g->result_text(prefix + "collectives_per_step"),
                    mean_std_cell(summarize(g->sample(prefix + "ms_per_step").values), 3),
                    yes_no_cell(ok, static_cast<int>(g->succeeded.size()))});
    }
    int injected = 0, completed = 0, caught = 0;
    for (const ReportTrial* t : g->succeeded) {
      const auto h = t->result.value("hazard", nlohmann::json::object());
      if (!h.value("injected", false)) continue;
      ++injected;
      completed += h.value("completed_without_error", false);
      caught += h.value("detected_by_checksum", false);
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

}  // namespace mt
