// mtrun look: is this machine quiet enough to time on? One look with nothing of ours running, as
// `run` takes before timing, then the cores' round trip, judged against the usual of the latest
// campaign in --db that read it (run/machine_look.h). Where the ranks run on other nodes (a Slurm
// allocation, an mpirun hostfile), `run` starts it on each of them with --json and judges the
// readings itself (run/node_look.h). With --allocation it looks at every node of the Slurm allocation it runs in,
// as a trial's job does first where it gets nodes of its own (run/job_look.h).
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "checked_output.h"
#include "commands/commands.h"
#include "commands/number_options.h"
#include "output_path.h"
#include "run/job_look.h"
#include "run/machine_look.h"
#include "run/quiet_machine.h"
#include "runner_error.h"

namespace mt {
namespace {

constexpr double kLongestLookSeconds = 600;

int look(double seconds, bool json, bool load_only, const std::filesystem::path& db, std::ostream& out) {
  const MachineLook look = look_at_this_machine(seconds, db, load_only);
  if (json) {
    // Exit 0 whatever the verdict: `run` starts this on each node and judges the reading itself.
    fmt::print(out, "{}\n", machine_look_json(look));
    return kExitOk;
  }
  fmt::print(out, "{}", machine_look_text(look));
  return look.verdict.disturbed ? kExitBusy : kExitOk;
}

struct AllocationLook {
  double wait_s = 0;
  std::filesystem::path record;  // where to write what the look did; empty: nowhere
  ConditionsThresholds thresholds;
};

// Every node of the allocation this runs in, through srun, until quiet or `wait_s` has passed:
// exit 0 quiet, 3 busy, 1 when it could not look. Says what it found, and records it where asked.
int look_at_allocation(const AllocationLook& options, const std::filesystem::path& db, std::ostream& out) {
  if (!options.record.empty()) refuse_output_onto_database(options.record, db, "--record");
  std::optional<LookPlace> allocation = allocation_look_place(mtrun_executable());
  if (!allocation) {
    throw RunnerError(kExitUsage, "look --allocation: not inside a Slurm allocation (SLURM_JOB_ID is not set)");
  }
  LookPlace& place = *allocation;
  place.recorded_as = "job_nodes";
  const TrialWait look = look_before_trial(options.wait_s, options.thresholds, nullptr, place);
  if (!options.record.empty()) replace_file_or_throw(options.record, job_look_json(look.before, look.words) + "\n");
  const std::string where = describe_look_place(place);
  if (look.before.quiet_found == "quiet") {
    fmt::print(out, "mtrun look: quiet {}{}\n", where, look.words.empty() ? "" : " (" + look.words.front() + ")");
    return kExitOk;
  }
  fmt::print(out, "mtrun look {}: {}\n", where, look.words.empty() ? "nothing readable" : look.words.front());
  return look.before.quiet_found == "busy" ? kExitBusy : kExitFailure;
}

}  // namespace

CommandRunner register_look_command(CLI::App& app, const GlobalOptions& global) {
  struct Options {
    double seconds = 1.0;
    bool json = false;
    bool load_only = false;
    bool allocation = false;
    AllocationLook look;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "look",
      "look at this machine for a moment: is it quiet enough to time on? (exit 3 when busy; the cores' round trip "
      "is judged against the latest campaign in --db that read it)");
  cmd->add_option("--seconds", options->seconds, "how long to look (default 1)")
      ->check(number_from_to(0.1, kLongestLookSeconds));
  cmd->add_flag("--json", options->json,
                "print the reading, the cores and the verdict as one line of JSON (what `run` reads from each node "
                "of a Slurm allocation or an mpirun hostfile) and exit 0 whatever the verdict");
  cmd->add_flag("--load-only", options->load_only,
                "the load alone: neither time the cores nor read --db (what `run` asks of each node, judging the "
                "loads itself)");
  auto* allocation =
      cmd->add_flag("--allocation", options->allocation,
                    "look at every node of the Slurm allocation this runs in (through srun), not this machine, as a "
                    "trial's job does first where each trial gets nodes of its own; exit 1 when it cannot look");
  auto* wait = cmd->add_option("--wait", options->look.wait_s,
                               "with --allocation: look again while the nodes are busy, for up to this many seconds")
                   ->check(number_from_to(0, 7 * 24 * 3600.0));
  auto* record = cmd->add_option("--record", options->look.record,
                                 "with --allocation: write what the look found to this file (JSON), as mtrun records "
                                 "it with the attempt");
  std::vector<CLI::Option*> needs_allocation = {wait, record};
  for (auto [flag, value, words] :
       {std::tuple{"--max-foreign-cpu-pct", &options->look.thresholds.max_foreign_cpu_pct, "other processes' CPU"},
        std::tuple{"--max-steal-pct", &options->look.thresholds.max_steal_pct, "steal"},
        std::tuple{"--max-cpu-pressure-pct", &options->look.thresholds.max_cpu_pressure_pct, "CPU pressure"}}) {
    needs_allocation.push_back(
        cmd->add_option(flag, *value,
                        fmt::format("with --allocation: the most {} a quiet node may show, % (default {:g}, as an "
                                    "experiment's `conditions`)",
                                    words, *value))
            ->check(number_from_to(0, 1e6)));
  }
  for (CLI::Option* option : needs_allocation) option->needs(allocation);
  allocation->excludes(cmd->get_option("--json"))
      ->excludes(cmd->get_option("--seconds"))
      ->excludes(cmd->get_option("--load-only"));
  return [options, &global](std::ostream& out) {
    if (options->allocation) return look_at_allocation(options->look, global.db, out);
    return look(options->seconds, options->json, options->load_only, global.db, out);
  };
}

}  // namespace mt
