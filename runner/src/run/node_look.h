#pragma once
// A look at the machines a Slurm allocation's trials run on. There the ranks run on the
// allocation's nodes, not on mtrun's host (often a cluster's login node, whose load says nothing
// about them), so the look is `mtrun look --json` started once on each node by srun, each printing
// one line: what its machine did over the look. mtrun reads the lines back and judges them with the
// campaign's thresholds, each reason naming its node.
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

// `srun` starting `mtrun look --json` once on each of the allocation's nodes (`nodes`; 0 where not
// known, then srun places one per node of the allocation). It shares the CPUs with any step still
// running (--overlap), so a leftover is seen, not waited for.
std::vector<std::string> node_look_command(const std::filesystem::path& mtrun, int nodes, double seconds,
                                           const std::string& srun = "srun");

// What the nodes' look found: the verdict over all of them, each reason led by "node NAME: ".
struct NodesLook {
  bool measured = false;
  Verdict verdict;
  std::string unavailable;  // why nothing is known, where not measured
};
// Judges srun's output (a reading per line): measured only when every expected node (`nodes`, where
// known) gave a readable one; otherwise `unavailable` says what was missing or unreadable.
NodesLook judge_node_readings(const std::string& output, int nodes, const ConditionsThresholds& thresholds);

}  // namespace mt
