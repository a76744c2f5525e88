#include "launch/trial_command.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <stdexcept>

#include <fmt/format.h>

#include "experiment/command_template.h"
#include "experiment/workload_params.h"

namespace mt {
namespace {

std::vector<std::string> engine_argv(const Trial& trial, const LaunchContext& context,
                                     const std::filesystem::path& result_file) {
  const WorkloadSpec* workload = find_workload(trial.workload);
  std::vector<std::string> argv = {context.engine.string(), workload ? workload->engine_subcommand : trial.workload};
  for (const auto& p : trial.params) {
    const ParamSpec* spec = workload ? workload->find(p.name) : nullptr;
    if (spec && !spec->engine_flag) continue;
    if (spec && spec->type == ParamType::Boolean) {
      if (p.value == "true") argv.push_back(flag_name(p.name));
      continue;
    }
    argv.push_back(flag_name(p.name));
    argv.push_back(p.value);
  }
  argv.insert(argv.end(), trial.engine_args.begin(), trial.engine_args.end());
  if (trial.profile) {  // traces go into this attempt's run directory, where the store looks for them
    argv.push_back(flag_name(kProfileParam));
    argv.push_back((result_file.parent_path() / kProfileDirName).string());
  }
  if (trial.restart.enabled()) {  // rank 0 keeps its progress where a relaunch can count the lost work
    argv.push_back(flag_name(kProgressFileParam));
    argv.push_back((result_file.parent_path() / kProgressFileName).string());
  }
  argv.push_back("--output");
  argv.push_back(result_file.string());
  return argv;
}

// A `command` trial's argv: each template word expanded with the trial's values (never a shell).
std::vector<std::string> command_argv(const Trial& trial, const LaunchContext& context,
                                      const std::filesystem::path& result_file) {
  const TemplateLookup lookup = trial_template_lookup(trial, context, result_file);
  std::vector<std::string> argv;
  for (const auto& word : trial.command) argv.push_back(expand_trial_template(word, lookup));
  return argv;
}

}  // namespace

TemplateLookup trial_template_lookup(const Trial& trial, const LaunchContext& context,
                                     const std::filesystem::path& result_file) {
  return [&trial, &context, result_file](const std::string& name) -> std::optional<std::string> {
    if (name == "result_file") return result_file.string();
    if (name == "run_dir") return result_file.parent_path().string();
    if (name == "experiment_dir") return context.experiment_dir.string();
    if (name == "repeat_index") return std::to_string(trial.repeat_index);
    if (name == "ranks") return std::to_string(trial.ranks);
    if (name == "trial") return trial.identity;
    for (const auto* list : {&trial.params, &trial.derived}) {
      for (const auto& p : *list) {
        if (p.name == name) return p.value;
      }
    }
    for (const auto& e : trial.environment) {
      if ("env." + e.name == name) return e.value;
    }
    return std::nullopt;
  };
}

std::string expand_trial_template(const std::string& word, const TemplateLookup& lookup) {
  std::string error;
  auto expanded = expand_template(word, lookup, error);
  if (!expanded) throw std::invalid_argument(error);  // validated before any run; a stored trial changed
  return *expanded;
}

std::string flag_name(const std::string& param) {
  std::string flag = "--" + param;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

Trial relaunch_of(const Trial& job, std::optional<int> reached_step) {
  Trial next = job;
  set_param(next.params, kResumeParam, job.restart.resume);
  next.engine_args = faults_not_reached(job.engine_args, reached_step);
  return next;
}

TrialCommand build_trial_command(const Trial& trial, const LaunchContext& context,
                                 const std::filesystem::path& result_file, const std::string& job_name,
                                 const std::vector<std::string>& first) {
  if (trial.workload == "command") {
    LaunchRequest request{trial.ranks, trial.environment, command_argv(trial, context, result_file), job_name, first};
    if (trial.command_uses_launcher) return wrap_for_launcher(request, context);
    LaunchCommand direct;
    direct.argv = direct.program = request.program;
    direct.environment = request.environment;
    return direct;
  }
  LaunchRequest request{trial.ranks, trial.environment, engine_argv(trial, context, result_file), job_name, first};
  return wrap_for_launcher(request, context);
}

std::string shell_quote(const std::vector<std::string>& argv) {
  static const auto plain_char = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) {
      table[c] = std::isalnum(c) || std::string_view("-_./=:,+@%").find(char(c)) != std::string_view::npos;
    }
    return table;
  }();
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty() && std::all_of(word.begin(), word.end(),
                                              [](char c) { return plain_char[static_cast<unsigned char>(c)]; });
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::string command_line(const LaunchCommand& command) {
  std::string out;
  if (!command.argv_sets_environment) {
    for (const auto& e : command.environment) out += e.name + "=" + shell_quote({e.value}) + " ";
  }
  return out + shell_quote(command.argv);
}

}  // namespace mt
