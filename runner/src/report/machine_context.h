#pragma once
// What decides CPU numbers besides the code (docs/measurement.md): the machine's cores and how a
// job used them, the BLAS, the floating-point mode and the launch environment. Read from the
// environment a result reports (newer engines and peers record all of it), with the runner's own
// launch record as the fallback; what neither holds is "not recorded", never guessed.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/groups.h"

namespace mt {

inline constexpr const char* kNotRecorded = "not recorded";

// The result's `environment` object, else its provenance row's software stack; an empty object when neither.
nlohmann::json trial_environment(const ReportTrial& trial);

// One field of an environment as text: strings as they are, whole numbers without decimals, booleans
// yes/no, objects as "NAME=value" pairs; "" when absent.
std::string environment_text(const nlohmann::json& environment, const std::string& key);

// Fields that describe how one trial was launched or what it measured rather than the machine or the
// build (threads, environment values, the BLAS probe): shown per configuration, never part of a stack.
bool is_per_launch_field(const std::string& key);

// How a job used the cores of its nodes.
struct CoreUse {
  std::optional<int> cores;  // logical CPUs online per node (environment.cpu_cores)
  int ranks = 1;
  int ranks_per_node = 1;                // most ranks on one host
  std::optional<int> threads_per_rank;   // the result's threads_per_rank, else OMP_NUM_THREADS
  bool launcher_oversubscribed = false;  // the recorded command asked for it (--oversubscribe, srun -O)

  // ranks × threads over all nodes; nullopt when the threads are not recorded.
  std::optional<int> total_threads() const;
  // More ranks × threads on a node than it has cores; without a core count, what the launcher was told.
  bool oversubscribed() const;
};

CoreUse core_use(const ReportTrial& trial);
// The group's first trial, oversubscribed when any of its trials was.
CoreUse core_use(const Group& group);

// "4 × 1 = 4 > 2 cores ⚠oversubscribed", "2 × 1 = 2 of 2 cores", "2 × 1 (cores not recorded)".
std::string core_use_cell(const CoreUse& use);

}  // namespace mt
