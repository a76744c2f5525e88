#pragma once
// `mtrun look` on this machine: the load over the look, then (where that reads quiet) the cores'
// round trip judged against the usual of the latest campaign in the database that read it, and the
// verdict by the default thresholds. The same facts print as lines for a person or as one line of
// JSON, which `run` also reads from each node of an allocation or hostfile (run/node_look.h).
#include <filesystem>
#include <optional>
#include <string>

#include "run/attempt_verdict.h"
#include "run/cores_now.h"
#include "run/node_look.h"

namespace mt {

struct MachineLook {
  NodeReading reading;
  // Timed only where the load read quiet: while other processes hold the CPUs the round trip says
  // nothing of the cores.
  std::optional<CoresNow> cores;
  Verdict verdict;  // by the default thresholds of docs/measurement.md, "Conditions"
};

// Looks at this machine for `seconds`; the cores are judged by campaigns in `db` (read only).
// Throws RunnerError where /proc/stat cannot be read or `db` is not an mtrun database. With
// `load_only` neither the cores are timed nor `db` read: a node's look for `run`, which judges the
// loads itself, costs no more than the load and depends on no database there.
MachineLook look_at_this_machine(double seconds, const std::filesystem::path& db, bool load_only = false);

// The lines `mtrun look` prints: the load, `cores: ...` where timed, then `quiet (...)` or a
// `busy: REASON` line per reason.
std::string machine_look_text(const MachineLook& look);

// One line of JSON (no newline): the node reading's fields, then `cores` (null where not timed) and
// `verdict` ("quiet" or "busy") with its `reasons`.
std::string machine_look_json(const MachineLook& look);

}  // namespace mt
