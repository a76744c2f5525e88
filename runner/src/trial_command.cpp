#include "trial_command.h"

#include <algorithm>

#include <fmt/format.h>

#include "workload_params.h"

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
  argv.push_back("--output");
  argv.push_back(result_file.string());
  return argv;
}

}  // namespace

std::string flag_name(const std::string& param) {
  std::string flag = "--" + param;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

TrialCommand build_trial_command(const Trial& trial, const LaunchContext& context,
                                 const std::filesystem::path& result_file) {
  TrialCommand cmd;
  const bool local = context.launcher.hostfile.empty();
  cmd.argv = {"mpirun", "-np", std::to_string(trial.ranks)};
  if (context.running_as_root) cmd.argv.push_back("--allow-run-as-root");
  if (local && trial.ranks > context.cores) cmd.argv.push_back("--oversubscribe");
  if (local) {
    // Shared-memory transport only: halves MPI_Init time for single-node jobs.
    for (const char* arg : {"--mca", "pml", "ob1", "--mca", "btl", "self,vader"}) cmd.argv.push_back(arg);
    int threads = std::max(1, context.cores / trial.ranks);
    cmd.environment.push_back({"OMP_NUM_THREADS", std::to_string(threads)});
    cmd.argv.push_back("-x");
    cmd.argv.push_back("OMP_NUM_THREADS");
  } else {
    cmd.argv.push_back("--hostfile");
    cmd.argv.push_back(context.launcher.hostfile.string());
  }
  for (const auto& e : trial.environment) {  // study env.* values, exported to every rank
    cmd.environment.push_back(e);
    cmd.argv.push_back("-x");
    cmd.argv.push_back(e.name);
  }
  cmd.argv.insert(cmd.argv.end(), context.launcher.extra_args.begin(), context.launcher.extra_args.end());
  auto engine = engine_argv(trial, context, result_file);
  cmd.argv.insert(cmd.argv.end(), engine.begin(), engine.end());
  return cmd;
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) {
      out += word;
    } else {
      out += '\'';
      for (char c : word) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace mt
