#include "report/sections/fault_tolerance_section.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/groups.h"
#include "report/render/markdown_table.h"
#include "report/sections/restarts_table.h"
#include "report/render/timeline_chart.h"

namespace mt {
namespace {

constexpr const char* kPass = "✓";
constexpr const char* kFail = "✗";

std::vector<const ReportTrial*> chains_of(const std::vector<ReportTrial>& trials) {
  std::vector<const ReportTrial*> out;
  for (const auto& t : trials) {
    if (t.workload == "chain") out.push_back(&t);
  }
  return out;
}

template <typename T>
void add_once(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Scenario × strategy: ✓ when every chain of the cell succeeded, else ✗ with how many did.
std::string verdict_table(const std::vector<const ReportTrial*>& chains) {
  std::vector<std::string> scenarios, strategies;
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> passed;  // (passed, total)
  for (const ReportTrial* t : chains) {
    add_once(scenarios, scenario_label(*t));
    add_once(strategies, t->strategy);
    auto& cell = passed[{scenario_label(*t), t->strategy}];
    cell.first += t->latest_state == std::string("succeeded") ? 1 : 0;
    ++cell.second;
  }
  std::vector<Column> columns = {{"scenario"}};
  for (const auto& s : strategies) columns.push_back({s.empty() ? "-" : s});
  MarkdownTable table(columns);
  for (const auto& scenario : scenarios) {
    std::vector<std::string> row = {scenario};
    for (const auto& strategy : strategies) {
      auto it = passed.find({scenario, strategy});
      if (it == passed.end()) {
        row.push_back("");
        continue;
      }
      const auto [ok, total] = it->second;
      std::string cell = ok == total ? kPass : kFail;
      if (total > 1 || ok != total) cell += fmt::format(" {}/{}", ok, total);
      row.push_back(cell);
    }
    table.add_row(std::move(row));
  }
  return table.render();
}

std::string stage_table(const std::vector<const ReportTrial*>& chains) {
  const bool repeats =
      std::any_of(chains.begin(), chains.end(), [](const ReportTrial* t) { return t->repeat_index > 0; });
  std::vector<Column> columns = {{"scenario"}, {"strategy"}};
  if (repeats) columns.push_back({"repeat", Align::Right});
  for (const char* c : {"stage", "expected", "observed", ""}) columns.push_back({c});
  columns.push_back({"s", Align::Right});
  MarkdownTable table(columns);
  for (const ReportTrial* t : chains) {
    if (t->stages.empty()) {
      std::vector<std::string> row = {scenario_label(*t), t->strategy};
      if (repeats) row.push_back(std::to_string(t->repeat_index));
      for (const char* c : {"-", "-", t->latest_state ? "no stage recorded" : "not run", kFail, "-"}) row.push_back(c);
      table.add_row(std::move(row));
      continue;
    }
    for (const auto& stage : t->stages) {
      std::vector<std::string> row = {scenario_label(*t), t->strategy};
      if (repeats) row.push_back(std::to_string(t->repeat_index));
      row.push_back(fmt::format("{} {}", stage.position, stage.name));
      row.push_back(stage.expected);
      row.push_back(stage.observed.empty() ? stage.state : stage.observed);
      row.push_back(!stage.met ? stage.state : *stage.met ? kPass : kFail);
      row.push_back(stage.duration_s ? fixed(*stage.duration_s, 1) : "-");
      table.add_row(std::move(row));
    }
  }
  return table.render();
}

// Every checkpoint save (time, bytes) and load (time) the stages' result files recorded, per
// strategy and rank count.
struct CheckpointIo {
  std::vector<double> save_ms, save_bytes, load_ms;
};

std::string size_text(double bytes) {
  if (bytes >= 1024.0 * 1024.0) return fixed(bytes / (1024.0 * 1024.0), 2) + " MiB";
  return fixed(bytes / 1024.0, 1) + " KiB";
}

std::string checkpoint_table(const std::vector<const ReportTrial*>& chains) {
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, CheckpointIo> io;
  for (const ReportTrial* t : chains) {
    for (const auto& stage : t->stages) {
      const auto result = nlohmann::json::parse(stage.result_json, nullptr, false);
      if (!result.is_object()) continue;
      const std::pair<std::string, int> key = {t->strategy, t->ranks};
      CheckpointIo& entry = io[key];
      bool any = false;
      for (const auto& save : result.value("checkpoint_saves", nlohmann::json::array())) {
        if (!save.is_object() || !save.value("save_ms", nlohmann::json()).is_number()) continue;
        entry.save_ms.push_back(save["save_ms"].get<double>());
        if (save.value("bytes", nlohmann::json()).is_number()) entry.save_bytes.push_back(save["bytes"].get<double>());
        any = true;
      }
      if (result.value("checkpoint_load_ms", nlohmann::json()).is_number()) {
        entry.load_ms.push_back(result["checkpoint_load_ms"].get<double>());
        any = true;
      }
      if (any) add_once(order, key);
    }
  }
  MarkdownTable table({{"strategy"},
                       {"ranks", Align::Right},
                       {"saves", Align::Right},
                       {"save ms (mean ± std)", Align::Right},
                       {"checkpoint size", Align::Right},
                       {"loads", Align::Right},
                       {"load ms (mean ± std)", Align::Right}});
  for (const auto& key : order) {
    const CheckpointIo& e = io[key];
    std::string size = "-";
    if (!e.save_bytes.empty()) {
      const auto [lo, hi] = std::minmax_element(e.save_bytes.begin(), e.save_bytes.end());
      size = *lo == *hi ? size_text(*lo) : size_text(*lo) + " – " + size_text(*hi);
    }
    table.add_row({key.first, std::to_string(key.second), std::to_string(e.save_ms.size()),
                   e.save_ms.empty() ? "-" : mean_std_cell(summarize(e.save_ms), 1), size,
                   std::to_string(e.load_ms.size()), e.load_ms.empty() ? "-" : mean_std_cell(summarize(e.load_ms), 1)});
  }
  if (table.empty()) return "";
  return "### Checkpoint save and load\n\nEvery save and resume recorded in the stages' result files "
         "(`checkpoint_saves`, `checkpoint_load_ms`), pooled per strategy over every scenario; the size is one "
         "checkpoint's, every rank's shard together. A stage that died took its saves with it: only stages that "
         "wrote a result count.\n\n" +
         table.render() + "\n" + kCellLegend + "\n\n";
}

}  // namespace

std::string render_fault_tolerance_section(const std::vector<ReportTrial>& trials) {
  const auto chains = chains_of(trials);
  const std::string restarts = render_restarts(trials);
  if (chains.empty()) return restarts.empty() ? "" : "## Fault tolerance\n\n" + restarts;
  std::string out =
      "## Fault tolerance\n\n"
      "Each scenario is a chain of stages run in one work directory (a study's `stages`): every stage launches "
      "`mtengine` (training with an injected fault or a resume, or `verify` comparing two checkpoints) and "
      "states what it expects — the outcome, the rank or step it fails at, what its output says, the step a "
      "resume starts from, an exact match, which checkpoint steps are published (READY). A chain passes (" +
      std::string(kPass) +
      ") only when every stage did what it expected; it stops at the first stage that "
      "did not (" +
      kFail + ").\n\n";
  out += verdict_table(chains) + "\n";
  out +=
      "### Stages\n\nThe latest attempt of each chain, stage by stage: what it expected and what happened "
      "(`s`: the stage's wall time).\n\n" +
      stage_table(chains) + "\n";
  out += restarts;
  out += checkpoint_table(chains);
  return out;
}

PlotSet fault_tolerance_plots(const std::vector<ReportTrial>& trials) {
  PlotSet out;
  const auto chains = chains_of(trials);
  const bool repeats =
      std::any_of(chains.begin(), chains.end(), [](const ReportTrial* t) { return t->repeat_index > 0; });
  TimelineSpec spec{"Every chain's stages at their wall times",
                    "seconds since the chain started",
                    {"succeeded", "crashed (killed)", "failed", "other"},
                    {}};
  for (const ReportTrial* t : chains) {
    if (t->stages.empty()) continue;
    TimelineRow row{scenario_label(*t) + (t->strategy.empty() ? "" : " " + t->strategy) +
                        (repeats ? fmt::format(" #{}", t->repeat_index) : ""),
                    {}};
    for (const auto& stage : t->stages) {
      const int kind = stage.state == "succeeded"                              ? 0
                       : stage.state == "crashed"                              ? 1
                       : stage.state == "failed" || stage.state == "timed_out" ? 2
                                                                               : 3;
      const bool missed = stage.met && !*stage.met;
      row.boxes.push_back(
          {stage.duration_s.value_or(0), stage.name + (missed ? " ✗" : ""),
           fmt::format("{} {}: {}{}", stage.position, stage.name, stage.observed.empty() ? stage.state : stage.observed,
                       missed ? " (not as expected)" : ""),
           kind});
    }
    spec.rows.push_back(std::move(row));
  }
  if (spec.rows.empty()) return out;
  std::string svg = timeline_svg(spec);
  out.plots.push_back(
      {"chain_timeline.svg", "Every chain's stages at their wall times", ChartSpec{spec.title}, std::move(svg)});
  return out;
}

}  // namespace mt
