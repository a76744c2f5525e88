#pragma once
// `restart: {max: N, resume: latest}` of a study: when a trial's job crashes, fails (but not on bad
// input, exit 2) or times out, mtrun relaunches it, up to N times within the same attempt, from the
// newest READY checkpoint of its checkpoint_dir and without the injected faults (each fires once
// per trial), so a run survives what a long job meets: a dead rank, a hung collective, a killed node.
// It applies to the study's own workload; in a chain, to each stage that runs that workload.
#include <optional>
#include <string>
#include <vector>

namespace mt {

inline constexpr int kMostRestarts = 100;
// Engine parameters a workload needs for restarts: where checkpoints go, where to resume from,
// and where rank 0 keeps its progress (so the work a restart recomputes can be counted).
inline constexpr const char* kCheckpointDirParam = "checkpoint_dir";
inline constexpr const char* kResumeParam = "resume";
inline constexpr const char* kProgressFileParam = "progress_file";
// The progress file mtrun asks for, in the job's run directory.
inline constexpr const char* kProgressFileName = "progress";

struct RestartPolicy {
  int max = 0;                    // relaunches allowed per job; 0: none
  std::string resume = "latest";  // where a relaunch resumes: the newest READY checkpoint

  bool enabled() const { return max > 0; }
  // "up to 3 restarts from the latest READY checkpoint"
  std::string describe() const;
  bool operator==(const RestartPolicy& o) const { return max == o.max && resume == o.resume; }
};

// The engine arguments a relaunch keeps once a launch got `reached_step` steps done: injected
// faults ("--fault KIND:...,step=S", or "--fault=...") fire once per trial, so those at a step it
// reached (S <= reached_step: they fired, or would have) go, and those beyond stay. With no
// progress known, or a fault without a step, every fault goes: a relaunch must not die again of
// the fault that ended the launch before it.
std::vector<std::string> faults_not_reached(const std::vector<std::string>& engine_args,
                                            std::optional<int> reached_step);

}  // namespace mt
