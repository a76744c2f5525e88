#pragma once
// Reads the machine's load without privileges: a snapshot before and after each job and, in a
// thread of its own, a sample every interval while the job runs (docs/measurement.md, "Conditions").
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "launch/machine_conditions.h"
#include "launch/marked_processes.h"

namespace mt {

// Where the kernel's files are: /proc and /sys, or a copy of them in tests.
struct MachinePaths {
  std::filesystem::path proc = "/proc";
  std::filesystem::path sys = "/sys";
};

MachineSnapshot read_snapshot(const MachinePaths& paths = {});
// /proc/stat's clock ticks per second.
double proc_ticks_per_second();

// Samples the machine every `interval_s` from start() to stop(), at most kMaxSamples times (a long
// job keeps its first ones; the before and after snapshots cover the whole window anyway). Given
// the name of a job whose processes carry its mark (marked_processes.h), it also finds them at each
// sample and reads their CPU time every tenth of a second.
class MachineSampler {
 public:
  static constexpr std::size_t kMaxSamples = 4000;
  explicit MachineSampler(double interval_s, MachinePaths paths = {}, const std::string& marked_job = "");
  ~MachineSampler();
  MachineSampler(const MachineSampler&) = delete;
  MachineSampler& operator=(const MachineSampler&) = delete;

  void start(double t0);
  std::vector<MachineSample> stop();
  // After stop(): the CPU time of the job's marked processes outside mtrun's tree; 0 without a job.
  double marked_cpu_s() const { return marked_ ? marked_->cpu_s() : 0; }

 private:
  void loop(double t0);
  double interval_s_;
  MachinePaths paths_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<MachineSample> samples_;
  std::optional<MarkedProcesses> marked_;
  std::thread thread_;
};

// The machine over `seconds` with no job of ours running: what doctor and `run` check before timing.
std::optional<MachineConditions> measure_machine(double seconds, const MachinePaths& paths = {});

// Steady-clock seconds, the time base of snapshots.
double steady_seconds();

}  // namespace mt
