#include "report/sections/failures_section.h"

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/groups.h"
#include "report/render/markdown_table.h"
#include "store/log_scan.h"

namespace mt {

bool still_running(const ReportTrial& t) { return !t.succeeded() && t.latest_state == std::string("running"); }

std::string render_failures_section(const std::vector<ReportTrial>& trials) {
  MarkdownTable table({{"trial"},
                       {"study"},
                       {"configuration"},
                       {"ranks", Align::Right},
                       {"repeat", Align::Right},
                       {"outcome"},
                       {"attempts", Align::Right},
                       {"rank", Align::Right},
                       {"step", Align::Right},
                       {"reason"},
                       {"log"}});
  size_t running = 0;
  for (const auto& t : trials) {
    running += still_running(t) ? 1 : 0;
    if (t.succeeded() || still_running(t)) continue;
    std::string config = trial_config(t);
    // Attempts recorded before the rank was read from the engine's message carry it only there.
    const std::optional<int> rank = t.error_rank ? t.error_rank : rank_named_in(t.error_reason);
    table.add_row({code(short_id(t.identity)), t.study, config.empty() ? "-" : config, std::to_string(t.ranks),
                   std::to_string(t.repeat_index), t.latest_state.value_or("not run"), std::to_string(t.attempts),
                   rank ? std::to_string(*rank) : "-", t.error_step ? std::to_string(*t.error_step) : "-",
                   t.error_reason.empty() ? "-" : t.error_reason, t.log_path.empty() ? "-" : code(t.log_path)});
  }
  std::string out = "## Failures\n\n";
  if (table.empty() && running > 0) {
    return out + fmt::format("No trial has failed; {} still running.\n\n",
                             running == 1 ? "1 is" : fmt::format("{} are", running));
  }
  if (table.empty()) return out + "Every trial succeeded.\n\n";
  return out +
         "Trials with no successful attempt, as their latest attempt ended. They contribute no numbers above; "
         "`mtrun rerun --failed` runs them again.\n\n" +
         table.render() + "\n";
}

}  // namespace mt
