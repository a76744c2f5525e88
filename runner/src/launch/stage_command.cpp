#include "launch/stage_command.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace mt {
namespace {

// The chain's values as a stage of its own workload sees them: {work_dir} among them, the chain's
// parameters expanded, then the stage's own parameters (which may refer to the chain's).
Trial stage_values(const Trial& chain, const Stage& stage, const ChainDirs& dirs, const LaunchContext& context,
                   const std::filesystem::path& result_file) {
  Trial base = chain;
  base.stages.clear();
  base.derived.push_back({kWorkDirName, dirs.work_dir().string()});
  if (stage.timeout_s > 0) base.timeout_s = stage.timeout_s;
  const Trial raw = base;
  const TemplateLookup chain_values = trial_template_lookup(raw, context, result_file);
  for (auto& p : base.params) p.value = expand_trial_template(p.value, chain_values);
  if (stage.workload != chain.workload) return base;
  Trial values = base;
  const TemplateLookup expanded = trial_template_lookup(base, context, result_file);
  for (const auto& p : stage.params) set_param(values.params, p.name, expand_trial_template(p.value, expanded));
  values.ranks = int(std::strtol(values.param("ranks", std::to_string(chain.ranks)).c_str(), nullptr, 10));
  return values;
}

}  // namespace

std::filesystem::path ChainDirs::stage_dir(std::size_t index, const Stage& stage) const {
  return run_dir / fmt::format("{}-{}", index + 1, stage.name);
}

StageLaunch prepare_stage(const Trial& chain, std::size_t index, const ChainDirs& dirs, const LaunchContext& context,
                          const std::string& job_name) {
  const Stage& stage = chain.stages.at(index);
  const auto result_file = dirs.stage_dir(index, stage) / "result.json";
  const Trial values = stage_values(chain, stage, dirs, context, result_file);
  const TemplateLookup lookup = trial_template_lookup(values, context, result_file);
  auto expand = [&](const std::string& word) { return expand_trial_template(word, lookup); };

  StageLaunch out;
  Trial& t = out.trial;
  t = values;
  t.workload = stage.workload;
  t.engine_args = stage.workload == chain.workload ? chain.engine_args : std::vector<std::string>{};
  if (stage.workload != chain.workload) t.restart = {};  // restarts cover the study's own workload
  if (stage.workload == kVerifyStage) {
    t.params.clear();  // verify takes the two directories, not the chain's training flags
    for (const auto& dir : stage.compare) t.engine_args.push_back(expand(dir));
  }
  for (const auto& arg : stage.engine_args) t.engine_args.push_back(expand(arg));
  if (stage.workload == kCommandStage) {
    t.command = stage.command;  // expanded with t's values when the command is built
    t.command_uses_launcher = stage.command_uses_launcher;
    t.metrics.clear();
  }
  out.command = build_trial_command(t, context, result_file, job_name);

  out.expect = stage.expect;
  out.expect.message_contains = expand(stage.expect.message_contains);
  if (!stage.expect.checkpoint_dir.empty()) {
    out.expect.checkpoint_dir = expand(stage.expect.checkpoint_dir);
  } else if (stage.workload == chain.workload) {
    out.expect.checkpoint_dir = values.param("checkpoint_dir");
  }
  return out;
}

std::string chain_command_text(const Trial& chain, const ChainDirs& dirs, const LaunchContext& context) {
  std::string text;
  for (std::size_t i = 0; i < chain.stages.size(); ++i) {
    if (!text.empty()) text += '\n';
    text +=
        fmt::format("stage {}: {}", chain.stages[i].name, command_line(prepare_stage(chain, i, dirs, context).command));
  }
  return text;
}

}  // namespace mt
