#pragma once
// Turns a trial into the exact argv that launches it (mpirun … mtengine train …) and the
// environment it runs with. The same text is shown by `mtrun plan` and stored with each attempt.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/command_template.h"
#include "launch/launcher.h"
#include "experiment/trial.h"

namespace mt {

using TrialCommand = LaunchCommand;

// The job a restart launches in place of `job` (experiment/restart_policy.h) once it got
// `reached_step` steps done: the same trial, resuming from its policy's checkpoint, without the
// injected faults that step had reached.
Trial relaunch_of(const Trial& job, std::optional<int> reached_step);

// `job_name` identifies this attempt's job to the launcher, `first` runs in its own allocation
// before its ranks (see LaunchRequest).
TrialCommand build_trial_command(const Trial& trial, const LaunchContext& context,
                                 const std::filesystem::path& result_file, const std::string& job_name = "mtrun",
                                 const std::vector<std::string>& first = {});

// The values a trial's template words expand to: its parameters, derived values and environment,
// and the built-ins (result_file, run_dir, …). Holds references to `trial` and `context`.
TemplateLookup trial_template_lookup(const Trial& trial, const LaunchContext& context,
                                     const std::filesystem::path& result_file);
// `word` expanded; throws std::invalid_argument naming what cannot be (checked before any run, so
// only a stored trial that no longer fits gets here).
std::string expand_trial_template(const std::string& word, const TemplateLookup& lookup);

// argv as a shell would need it typed: words with special characters are single-quoted.
std::string shell_quote(const std::vector<std::string>& argv);

// The command as recorded and shown by `mtrun plan`: the environment it runs with as NAME=VALUE
// prefixes (unless argv already names every value), then argv shell-quoted.
std::string command_line(const LaunchCommand& command);

// "--batch-size" for "batch_size".
std::string flag_name(const std::string& param);

}  // namespace mt
