#pragma once
// A look at the machines the trials run on where they are not mtrun's: the nodes of the Slurm
// allocation mtrun runs in, or the hosts of an mpirun hostfile (mtrun on a cluster's login node,
// whose load says nothing of them). There the look is `mtrun look --json` started once on each node
// by the launcher, each printing one line: what its machine did over the look. mtrun reads the
// lines back and judges them with the campaign's thresholds, each reason naming its node.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/measurement_rules.h"
#include "launch/machine_conditions.h"
#include "run/attempt_verdict.h"

namespace mt {

// One machine's look, as `mtrun look --json` prints it.
struct NodeReading {
  std::string host;  // gethostname()
  std::string node;  // the Slurm node name (SLURMD_NODENAME), "" outside a Slurm step
  MachineConditions conditions;
};

// A reading as one line of JSON (no newline).
std::string reading_json(const NodeReading& reading);
// Reads one line back; throws std::runtime_error saying what is wrong with it.
NodeReading parse_reading(const std::string& line);

// What starts one look per node: srun over the allocation's nodes (`nodes`; 0 where not known, then
// srun places one on each), sharing the CPUs with any step still running (--overlap), so a leftover
// is seen, not waited for; mpirun over a hostfile's hosts, one on each, with the launcher's own
// extra arguments (the settings that reach those hosts).
std::vector<std::string> srun_look_launcher(int nodes);
std::vector<std::string> mpirun_look_launcher(const std::filesystem::path& hostfile, bool as_root,
                                              const std::vector<std::string>& extra_args);
// `launcher` followed by `mtrun look --json --seconds S`.
std::vector<std::string> node_look_command(const std::vector<std::string>& launcher, const std::filesystem::path& mtrun,
                                           double seconds);

// What the nodes' look found: the verdict over all of them, each reason led by "node NAME: ".
struct NodesLook {
  bool measured = false;
  Verdict verdict;
  std::string unavailable;  // why nothing is known, where not measured
};
// Judges the launcher's output (a reading per line): measured only when every expected node (`nodes`, where
// known) gave a readable one; otherwise `unavailable` says what was missing or unreadable.
NodesLook judge_node_readings(const std::string& output, int nodes, const ConditionsThresholds& thresholds);

}  // namespace mt
