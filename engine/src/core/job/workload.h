// What every subcommand that runs as an MPI job shares (train, verify, comm, moe, tp, groups):
// validate before MPI starts, start the MPI session, check the output path, run collectively,
// turn an exception on any rank into an error result and a job abort, write rank 0's result
// JSON atomically, and map all of it to exit codes (0 ok, 1 failure, 2 bad input).
// A workload implements the parts that differ; run_workload() is the rest.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/cli/job_options.h"
#include "core/comm/process_group.h"

namespace mt {

// The version of schemas/result.schema.json that every result document follows.
constexpr int kResultSchemaVersion = 1;

// A result document: the fields every workload's result opens with (schema_version, benchmark,
// status "ok" or "error") merged with the workload's own `fields`.
nlohmann::json result_document(const std::string& benchmark, bool ok, nlohmann::json fields);

struct RunError {
  std::optional<int> rank;  // nullopt: unknown or all ranks
  std::optional<int64_t> step;
  std::string reason;
  std::string policy;  // empty: not recorded
};

struct WorkloadOutcome {
  int exit_code = 0;      // 0, or 1 when the run itself failed (e.g. a non-finite loss)
  nlohmann::json result;  // rank 0's is written to the output path
};

class Workload {
 public:
  virtual ~Workload() = default;

  virtual std::string name() const = 0;  // the subcommand, for messages: "train"
  // The first problem with the flags (checked by every rank before MPI starts), or nothing.
  virtual std::optional<std::string> validate() const = 0;
  // Backend, collective timeout (0: no limit) and result path (empty: no result file).
  virtual const JobOptions& job() const = 0;
  // Collective: every rank calls it. Throws on failure.
  virtual WorkloadOutcome run(ProcessGroup& group) = 0;
  // The result document of a failed run (status "error"), with what is known. By default the
  // benchmark, backend and error; a workload with more to say (its configuration) overrides it.
  virtual nlohmann::json error_result(const RunError& error) const;
  // The step the run was at when it failed, when the workload has steps.
  virtual std::optional<int64_t> current_step() const { return std::nullopt; }
};

// {"reason", "rank", "step"}: the error object of a result; null where unknown.
nlohmann::json error_json(const RunError& error);

// The skeleton: returns the process exit code.
int run_workload(Workload& workload);

// Writes to a temporary file beside `path` (beside the file a symlink names) and renames it into
// place, so a reader never sees a partial file. Throws std::runtime_error naming the path on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& document);

}  // namespace mt
