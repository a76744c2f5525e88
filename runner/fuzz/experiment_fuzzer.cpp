// libFuzzer target over everything an experiment file goes through before a trial runs: YAML
// parsing, validation, expansion (zip, exclude, include, derived values, where), command
// templates and diagnostics formatting. Malformed input must only ever produce a message.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "experiment/experiment_loader.h"
#include "launch/launcher.h"
#include "experiment/matrix.h"
#include "launch/trial_command.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The loader reads files (diagnostics quote the offending line), so the input becomes one.
  static const std::string path = "/tmp/mtrun-fuzz-" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  mt::LoadResult loaded = mt::load_experiment(path);
  std::string text = mt::format_diagnostics(loaded.errors);
  if (!loaded.experiment) return 0;
  mt::Expansion expansion = mt::expand_experiment(*loaded.experiment);
  text += mt::format_diagnostics(expansion.errors);
  if (!expansion.errors.empty()) return 0;
  mt::LaunchContext context;
  context.engine = "/usr/bin/mtengine";
  context.launcher = loaded.experiment->launcher;
  for (size_t i = 0; i < expansion.trials.size() && i < 64; ++i) {
    mt::TrialCommand cmd = mt::build_trial_command(expansion.trials[i], context, "/tmp/result.json");
    text += mt::shell_quote(cmd.argv);
  }
  return 0;
}
