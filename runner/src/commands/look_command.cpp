// mtrun look: is this machine quiet enough to time on? One look with nothing of ours running, as
// `run` takes before timing. Where the ranks run on other nodes (a Slurm allocation, an mpirun
// hostfile), `run` starts it on each of them with --json and judges the readings itself
// (run/node_look.h).
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "launch/machine_sampler.h"
#include "run/attempt_verdict.h"
#include "run/node_look.h"
#include "runner_error.h"
#include "store/lease.h"

namespace mt {
namespace {

constexpr double kLongestLookSeconds = 600;

std::string optional_pct(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f} %", *value) : std::string("not readable");
}

int look(double seconds, bool json, std::ostream& out) {
  const auto conditions = measure_machine(seconds);
  if (!conditions) throw RunnerError(kExitFailure, "/proc/stat is not readable: the machine's load cannot be measured");
  NodeReading reading;
  reading.host = this_host();
  if (const char* node = std::getenv("SLURMD_NODENAME")) reading.node = node;
  reading.conditions = *conditions;
  if (json) {
    fmt::print(out, "{}\n", reading_json(reading));
    return kExitOk;
  }
  const MachineConditions& c = reading.conditions;
  fmt::print(out, "{}{}: {} CPUs over {:.1f} s: other processes used {:.0f} % of a core, steal {}, CPU pressure {}\n",
             reading.host, reading.node.empty() ? "" : fmt::format(" (Slurm node {})", reading.node), c.cpus, c.wall_s,
             c.foreign_cpu_pct, optional_pct(c.steal_pct), optional_pct(c.cpu_pressure_pct));
  const Verdict verdict = judge_idle_machine(c, ConditionsThresholds{});
  if (!verdict.disturbed) {
    fmt::print(out, "quiet (the default thresholds of docs/measurement.md, \"Conditions\")\n");
    return kExitOk;
  }
  for (const std::string& reason : verdict.reasons) fmt::print(out, "busy: {}\n", reason);
  return kExitBusy;
}

}  // namespace

CommandRunner register_look_command(CLI::App& app, const GlobalOptions&) {
  struct Options {
    double seconds = 1.0;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "look", "look at this machine for a moment: is it quiet enough to time on? (exit 3 when busy)");
  cmd->add_option("--seconds", options->seconds, "how long to look (default 1)")
      ->check(CLI::Range(0.1, kLongestLookSeconds));
  cmd->add_flag("--json", options->json,
                "print the reading as one line of JSON (what `run` reads from each node of a Slurm allocation or "
                "an mpirun hostfile) and exit 0; the caller judges it");
  return [options](std::ostream& out) { return look(options->seconds, options->json, out); };
}

}  // namespace mt
