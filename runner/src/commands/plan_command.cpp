// mtrun plan FILE: every trial, its identity and its exact command — nothing is run.
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "commands/experiment_plan.h"

namespace mt {

int plan_command(const PlanOptions& options, std::ostream& out) {
  ExperimentPlan plan = make_plan(options.experiment, options.engine);
  const std::filesystem::path placeholder = "RUN_DIR/result.json";
  for (size_t i = 0; i < plan.trials.size(); ++i) {
    const Trial& t = plan.trials[i];
    TrialCommand cmd = build_trial_command(t, plan.context, placeholder);
    std::string env;
    for (const auto& [name, value] : cmd.environment) env += fmt::format("{}={} ", name, value);
    fmt::print(out, "{} {} {} rep {} (timeout {} s)\n    {}{}\n", t.identity.substr(0, 12), t.study, t.axes_label(),
               t.repeat_index, t.timeout_s, env, shell_quote(cmd.argv));
  }
  fmt::print(out, "{} trials in campaign {} (revision {})\n", plan.trials.size(), plan.campaign_id,
             plan.source_revision.substr(0, 12));
  return 0;
}

}  // namespace mt
