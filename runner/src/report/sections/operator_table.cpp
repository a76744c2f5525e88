#include "report/sections/operator_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "report/model/step_profile.h"

namespace mt {
namespace {

struct OperatorFigures {
  std::vector<double> calls, self_ms, total_ms;
};

// One group's operators over its trials and ranks, and the step each rank recorded.
struct GroupOperators {
  std::map<std::string, OperatorFigures> by_name;
  std::vector<double> recorded_ms, step_ms;
  std::string not_recorded;  // why, when no rank recorded any
};

double number(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

GroupOperators collect(const Group& g) {
  GroupOperators out;
  for (const ReportTrial* t : g.succeeded) {
    const nlohmann::json* profile = profile_of(*t);
    if (!profile || !profile->contains("ranks") || !(*profile)["ranks"].is_array()) continue;
    for (const auto& rank : (*profile)["ranks"]) {
      if (!rank.is_object() || !rank.contains("operators") || !rank["operators"].is_object()) continue;
      const auto& ops = rank["operators"];
      for (const char* reason : {"skipped", "error"}) {
        if (ops.contains(reason) && ops[reason].is_string() && out.not_recorded.empty()) {
          out.not_recorded = ops[reason].get<std::string>();
        }
      }
      if (!ops.contains("top") || !ops["top"].is_array()) continue;
      out.recorded_ms.push_back(number(ops, "recorded_ms"));
      out.step_ms.push_back(number(ops, "step_ms"));
      for (const auto& op : ops["top"]) {
        if (!op.is_object() || !op.contains("name") || !op["name"].is_string()) continue;
        OperatorFigures& f = out.by_name[op["name"].get<std::string>()];
        f.calls.push_back(number(op, "calls"));
        f.self_ms.push_back(number(op, "self_ms"));
        f.total_ms.push_back(number(op, "total_ms"));
      }
    }
  }
  return out;
}

}  // namespace

std::string render_operator_table(const std::vector<const Group*>& groups, std::size_t top) {
  MarkdownTable table({{"strategy"},
                       {"ranks", Align::Right},
                       {"configuration"},
                       {"operators ms of step ms", Align::Right},
                       {"operator"},
                       {"calls", Align::Right},
                       {"self ms", Align::Right},
                       {"total ms", Align::Right},
                       {"share of operator time", Align::Right}});
  bool any = false;
  std::vector<std::string> reasons;
  for (const Group* g : groups) {
    const GroupOperators ops = collect(*g);
    if (ops.by_name.empty()) {
      if (!ops.not_recorded.empty()) reasons.push_back(fmt::format("{}: {}", g->label(), ops.not_recorded));
      continue;
    }
    any = true;
    std::vector<std::pair<std::string, const OperatorFigures*>> ranked;
    for (const auto& [name, figures] : ops.by_name) ranked.emplace_back(name, &figures);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      const double sa = mean(a.second->self_ms), sb = mean(b.second->self_ms);
      return sa != sb ? sa > sb : a.first < b.first;
    });
    const double recorded = mean(ops.recorded_ms);
    for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i) {
      const OperatorFigures& f = *ranked[i].second;
      const double self = mean(f.self_ms);
      table.add_row({i == 0 ? g->strategy : "", i == 0 ? std::to_string(g->ranks) : "", i == 0 ? g->label() : "",
                     i == 0 ? fmt::format("{} of {}", fixed(recorded, 2), fixed(mean(ops.step_ms), 2)) : "",
                     code(ranked[i].first), fixed(mean(f.calls), 0), fixed(self, 2), fixed(mean(f.total_ms), 2),
                     recorded > 0 ? percent(self / recorded) : "-"});
    }
  }
  if (!any && reasons.empty()) return "";
  std::string md =
      "### Top operators (LibTorch's profiler)\n\n"
      "LibTorch's own profiler (Kineto, host operators) records every operator of one step on each rank: the last "
      "warmup step, so that its cost, far larger than our spans', stays out of every other figure. An operator's "
      "self time leaves out the operators it called, so self times add up to the time spent in operators; total "
      "time keeps them. Per configuration the largest by self time, each figure the mean over ranks and repeats "
      "(over those where the operator is among a rank's 15 largest); \"operators ms of step ms\": the time in all "
      "operators against that step's own time, the rest being time outside any operator (waiting for collectives, "
      "the engine's own code between operators). Kineto's trace of that step is written beside ours, as "
      "`profile/rank_NNNNN.operators.json` in the trial's run directory.\n\n";
  if (any) md += table.render() + "\n";
  for (const auto& reason : reasons) md += fmt::format("- No operators recorded for {}.\n", reason);
  if (!reasons.empty()) md += "\n";
  return md;
}

}  // namespace mt
