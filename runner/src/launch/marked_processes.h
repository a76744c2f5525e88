#pragma once
// A scheduler starts a job's ranks outside mtrun's process tree (Slurm: children of slurmstepd), so
// their CPU time is neither in RUSAGE_CHILDREN nor among mtrun's descendants, and would read as
// other processes' load on the machine. The launcher marks the job's environment
// (MTRUN_JOB=JOB-NAME, which srun and sbatch pass on to every task); MarkedProcesses finds the
// processes on this machine that carry the mark and keeps the latest CPU time of each, read again
// often, so a rank's last moments before it exits are not lost.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace mt {

inline constexpr const char* kJobMarkVariable = "MTRUN_JOB";

// Whether a /proc/PID/environ text (entries ended by NULs) carries the job's mark: MTRUN_JOB=NAME,
// or NAME-N (the job of a chain's stage N).
bool environ_has_mark(std::string_view environ, std::string_view job_name);

class MarkedProcesses {
 public:
  MarkedProcesses(std::string job_name, std::filesystem::path proc = "/proc");

  // Looks through every process for marked ones not yet found, leaving out `tree_root` and its
  // descendants (mtrun's own tree, counted apart); tree_root <= 0 leaves out none.
  void find(int tree_root);
  // Reads the CPU time of the processes found again (those that ended keep their last reading).
  void refresh();
  // The CPU time of every process found, each at its latest reading.
  double cpu_s() const;
  std::size_t found() const { return cpu_ticks_.size(); }

 private:
  // A process is its PID and its start time: a PID used again is another process.
  using Process = std::pair<int, std::uint64_t>;
  // A process's environment as looked at: the process and where the environment lay. One looked at
  // between fork and exec shows its parent's environment; exec moves it, and it is looked at again.
  using Environment = std::tuple<int, std::uint64_t, std::uint64_t, std::uint64_t>;
  std::string job_name_;
  std::filesystem::path proc_;
  std::map<Process, std::uint64_t> cpu_ticks_;  // the marked ones: their latest CPU ticks
  std::set<Environment> unmarked_;              // looked at once, not to read again
};

}  // namespace mt
