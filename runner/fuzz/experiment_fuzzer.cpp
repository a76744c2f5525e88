// libFuzzer target over everything an experiment file goes through before a trial runs: YAML
// parsing, validation, the trial-count limit, expansion (zip, exclude, include, derived values,
// where), command templates and diagnostics formatting; and the input as a bare expression, with
// its depth limit. Malformed input must only ever produce a message.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "../tests/engine_fixture.h"
#include "experiment/experiment_loader.h"
#include "experiment/expression.h"
#include "experiment/matrix.h"
#include "launch/launcher.h"
#include "launch/trial_command.h"

namespace {

// The input as an expression: parsed, and evaluated with every name defined.
void fuzz_expression(const std::string& source) {
  std::string error;
  int column = 0;
  auto expression = mt::Expression::parse(source, error, column);
  if (!expression) return;
  expression->evaluate([](const std::string&) { return std::optional<std::string>("2"); }, error);
  expression->names();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mt::register_engine_fixture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_expression(std::string(reinterpret_cast<const char*>(data), size));
  // The loader reads files (diagnostics quote the offending line), so the input becomes one.
  static const std::string path = "/tmp/mtrun-fuzz-" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  mt::LoadResult loaded = mt::load_experiment(path);
  std::string text = mt::format_diagnostics(loaded.errors);
  if (!loaded.experiment) return 0;
  // A small limit keeps each input fast; the count is checked before anything is expanded.
  mt::Expansion expansion = mt::expand_experiment(*loaded.experiment, mt::ExpansionLimits{10000});
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
