#include "report/sections/restarts_table.h"

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/groups.h"
#include "report/render/markdown_table.h"
#include "stats.h"

namespace mt {
namespace {

std::string optional_cell(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

std::string render_restarts(const std::vector<ReportTrial>& trials) {
  MarkdownTable table({{"scenario"},
                       {"strategy"},
                       {"stage"},
                       {"launch", Align::Right},
                       {"ended"},
                       {"steps done", Align::Right},
                       {"resumed from", Align::Right},
                       {"steps recomputed", Align::Right},
                       {"time to recover s", Align::Right},
                       {"s", Align::Right}});
  int jobs = 0, restarts = 0, lost = 0;
  std::vector<double> recovery;
  for (const ReportTrial& t : trials) {
    for (const auto& launches : relaunched_jobs(t.launches)) {
      ++jobs;
      restarts += int(launches.size()) - 1;
      for (const LaunchRow* l : launches) {
        const bool relaunched = l->launch < int(launches.size());
        if (relaunched && l->lost_steps) lost += *l->lost_steps;
        if (relaunched && l->recovery_s) recovery.push_back(*l->recovery_s);
        table.add_row({scenario_label(t), t.strategy, l->stage.empty() ? "-" : l->stage, std::to_string(l->launch),
                       launch_ending(*l), optional_cell(l->reached_step),
                       l->resumed_from_step ? std::to_string(*l->resumed_from_step) : "start",
                       relaunched ? optional_cell(l->lost_steps) : "",
                       relaunched ? (l->recovery_s ? fixed(*l->recovery_s, 2) : "-") : "", fixed(l->duration_s, 1)});
      }
    }
  }
  if (jobs == 0) return "";
  std::string out = fmt::format(
      "### Restarts\n\nJobs of studies with `restart:` that died were relaunched by mtrun from their newest READY "
      "checkpoint within the same attempt, each keeping only the injected faults its steps had not reached: {} "
      "job{} relaunched {} time{} in all, {} step{} computed again. Per launch: how it ended, the steps it had "
      "done (the engine's progress file), the step it resumed from, and for each launch that was followed by "
      "another the steps that one recomputed and its time to recover: from this launch's last progress until the "
      "next had as many steps done again — the step cut short, the job's teardown, the relaunch's start-up and "
      "checkpoint load, and the recomputed steps (`-` when the next launch never got that far).",
      jobs, jobs == 1 ? "" : "s", restarts, restarts == 1 ? "" : "s", lost, lost == 1 ? "" : "s");
  if (!recovery.empty()) {
    const Summary s = summarize(recovery);
    out += fmt::format(" Time to recover: {} ± {} s (mean ± std over {}), {}–{} s.", fixed(s.mean, 2), fixed(s.std, 2),
                       s.n, fixed(s.min, 2), fixed(s.max, 2));
  }
  return out + "\n\n" + table.render() + "\n";
}

}  // namespace mt
