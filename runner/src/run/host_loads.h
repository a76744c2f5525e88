#pragma once
// The load of the machines a job ran on that mtrun does not run on (a cluster's compute nodes, with
// mtrun on its login node), as the job's ranks saw them: the result's `rank_host_window`, one per
// rank in the order of `hosts`. Hosts that share a kernel (its boot id: containers or network
// namespaces of one machine) share one /proc/stat, so they are one machine, read once.
#include <string>
#include <vector>

namespace mt {

struct HostLoad {
  std::string hosts;  // "c12"; "a+b" where several hostnames share one kernel
  double wall_s = 0;
  int cpus = 0;
  // Other processes' CPU, % of one core: the machine's busy time less the CPU of the job's ranks
  // there, over the window of its first rank.
  double foreign_cpu_pct = 0;
  double steal_pct = 0;
};

// The machines of the job other than mtrun's own: the kernel `own_boot_id`, or where a rank's boot
// id is missing, the hostname `own_host`. A machine where a rank's window is missing is left out:
// that rank's CPU could not be told from a neighbour's. Empty for results without windows. With
// both `own_boot_id` and `own_host` empty, every machine of the job.
std::vector<HostLoad> other_machines_load(const std::string& result_json, const std::string& own_boot_id,
                                          const std::string& own_host);

// This machine's kernel boot id, "" where unreadable.
std::string this_kernel_boot_id();

}  // namespace mt
