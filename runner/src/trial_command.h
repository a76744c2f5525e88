#pragma once
// Turns a trial into the exact argv that launches it (mpirun … mtengine train …) and the
// environment it runs with. The same text is shown by `mtrun plan` and stored with each attempt.
#include <filesystem>
#include <string>
#include <vector>

#include "experiment.h"
#include "trial.h"

namespace mt {

struct LaunchContext {
  std::filesystem::path engine;  // absolute path of mtengine
  LauncherConfig launcher;
  bool running_as_root = false;
  int cores = 1;  // CPU cores of this machine, for the default thread count and oversubscription
};

struct TrialCommand {
  std::vector<std::string> argv;
  std::vector<Param> environment;  // set on top of the runner's own environment
};

TrialCommand build_trial_command(const Trial& trial, const LaunchContext& context,
                                 const std::filesystem::path& result_file);

// argv as a shell would need it typed: words with special characters are single-quoted.
std::string shell_quote(const std::vector<std::string>& argv);

// "--batch-size" for "batch_size".
std::string flag_name(const std::string& param);

}  // namespace mt
