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

// A count a result states (cpu_cores, threads_per_rank, OMP_NUM_THREADS): a whole number of at least
// one that an int holds, given as a number or as decimal text (environment variables are text);
// nullopt for anything else, as a workload may write anything.
std::optional<int> stated_count(const nlohmann::json& object, const char* key);

// How a job of `ranks` ranks says it used its cores, as both the verdict on an attempt and a report
// read it: cores per node from the environment's cpu_cores; the most ranks on one host from the
// result's `hosts`, else all of them on one; threads per rank from the result's threads_per_rank,
// else the environment's, else its OMP_NUM_THREADS. The environment is given apart, as a report
// takes it from the provenance where a result has none.
CoreUse stated_core_use(const nlohmann::json& result, const nlohmann::json& environment, int ranks);

}  // namespace mt
