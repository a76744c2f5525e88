#pragma once
// What the machine was doing while a job ran, from two snapshots (before and after the job) and the
// samples taken between them: the arithmetic only, so it is tested on canned readings.
#include <optional>
#include <vector>

#include "launch/proc_readings.h"

namespace mt {

// Everything read at one moment. The CPU times of this process and of its waited-for descendants
// come from getrusage; the rest from /proc and /sys (nullopt where unreadable).
struct MachineSnapshot {
  double t = 0;  // steady-clock seconds
  std::optional<ProcStat> stat;
  std::optional<double> load1;
  std::optional<double> cpu_mhz;  // mean over CPUs
  std::optional<double> mem_available_mib;
  std::optional<double> cpu_pressure_us;     // /proc/pressure/cpu some total
  std::optional<double> memory_pressure_us;  // /proc/pressure/memory some total
  double self_cpu_s = 0;                     // RUSAGE_SELF: mtrun, every thread
  double children_cpu_s = 0;                 // RUSAGE_CHILDREN: descendants waited for
  double descendants_cpu_s = 0;              // live descendants, with their waited-for children
};

// What the sampler keeps of a reading taken during the job.
struct MachineSample {
  double t = 0;  // seconds since the job started
  std::optional<double> load1;
  std::optional<double> cpu_mhz;
  std::optional<double> mem_available_mib;
};

struct MachineConditions {
  double wall_s = 0;
  int cpus = 0;
  double busy_cpu_s = 0;       // every process on the machine (/proc/stat)
  double job_cpu_s = 0;        // the job's processes
  double runner_cpu_s = 0;     // mtrun itself
  double foreign_cpu_pct = 0;  // the rest, % of one core, never below 0
  std::optional<double> steal_pct;
  std::optional<double> context_switches;
  std::optional<double> load1_before, load1_after, load1_max;
  std::optional<double> cpu_mhz_min, cpu_mhz_max;
  std::optional<double> cpu_pressure_pct, memory_pressure_pct;
  std::optional<double> mem_available_mib_min;
  std::optional<double> calibration_gflops;  // set by the caller from the engine's result
  // The round trip between CPUs just before and just after the job (launch/core_round_trip.h), set
  // by the caller where it measured them.
  std::optional<double> core_round_trip_ns_before, core_round_trip_ns_after;
  // Of the job's ranks, those that ran on this machine (by the result's hostnames), set by the
  // caller; nullopt where the result does not say. At 0 the figures above are not the job's host's.
  std::optional<int> job_ranks_here;
  std::vector<MachineSample> samples;
};

// Conditions over the window from `before` to `after`, `ticks_per_s` being /proc/stat's clock
// (sysconf(_SC_CLK_TCK)). The job's CPU time is the growth of RUSAGE_CHILDREN: the job is this
// process's only child in the window, and everything it started is waited for by its parent before
// the job ends (its leftovers are killed and reaped by mtrun, a subreaper), so their time is in it.
// Nullopt when /proc/stat could not be read at either end.
std::optional<MachineConditions> conditions_between(const MachineSnapshot& before, const MachineSnapshot& after,
                                                    const std::vector<MachineSample>& samples, double ticks_per_s);

// Adds the CPU time of the job's processes found outside mtrun's tree by their mark (a Slurm
// step's tasks on this machine) to the job's, and what is left to other processes.
void count_marked_processes(MachineConditions& conditions, double marked_cpu_s);

// The job's own CPU as its ranks report it (`rank_cpu_s` of those on this machine), where that is
// more than mtrun counted from the processes it started: ranks a scheduler started here
// (slurmstepd's children under srun) are not mtrun's descendants, and would read as another
// process's load. The foreign share follows.
void count_ranks_started_elsewhere(MachineConditions& conditions, double ranks_cpu_s);

}  // namespace mt
