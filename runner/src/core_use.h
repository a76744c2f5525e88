#pragma once
// How a job used the cores of its nodes, and whether it ran more threads on one than it has: what
// reports mark ⚠oversubscribed (report/model/machine_context.h) and what the verdict on an attempt leaves
// unjudged (run/attempt_verdict.h).
#include <optional>

#include <nlohmann/json.hpp>

namespace mt {

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

// The most ranks a result's `hosts` (one name per rank) put on one host; nullopt when it names none.
std::optional<int> most_ranks_on_one_host(const nlohmann::json& result);

}  // namespace mt
