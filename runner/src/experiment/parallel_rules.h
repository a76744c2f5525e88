#pragma once
// When trials may run at the same time (`parallel: N`): only where they cannot disturb each
// other's timings. Slurm gives each trial an allocation of its own with --exclusive nodes; mpirun
// needs a disjoint set per trial in flight: CPUs on this machine, hosts from a hostfile.
#include <optional>
#include <set>
#include <string>

#include "experiment/experiment.h"

namespace mt {

// Why `parallel` trials in flight with this launcher could disturb each other, or "" when they
// cannot (or parallel is 1).
std::string parallel_problem(const LauncherConfig& launcher, int parallel);

// The CPUs of an Open MPI cpu list ("0-3,8"), or nullopt when it is not one.
std::optional<std::set<int>> parse_cpu_list(const std::string& text);

// The host names of a host set ("n1,n2:2"), slot counts dropped; empty names are left out.
std::set<std::string> hosts_of(const std::string& text);

// Why these sets are not usable (not lists, empty, overlapping), or "".
std::string cpu_sets_problem(const std::vector<std::string>& sets);
std::string host_sets_problem(const std::vector<std::string>& sets);

// The CPUs this process may run on (its affinity mask), in order; empty where it cannot be read.
std::set<int> cpus_of_this_process();
// Why these sets name CPUs this machine does not give this process (taskset would refuse them when
// the first trial starts), or "" (also where its CPUs cannot be read).
std::string cpu_sets_beyond_this_machine(const std::vector<std::string>& sets);

}  // namespace mt
