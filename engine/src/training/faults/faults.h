// Faults injected on purpose (`mtengine train --fault KIND:key=value,...`, repeatable), to prove
// that failures are handled: every rank stops, nothing published is damaged, a resume continues.
// Steps are 0-based training steps, warmup included, as in the result JSON's error.step; for
// save-kill, the step is the checkpoint's (step_%08d). Off unless asked for.
//   kill:rank=R,step=S               rank R SIGKILLs itself before step S
//   exit:rank=R,step=S,code=C        rank R exits with code C before step S (no MPI shutdown)
//   nan:rank=R,step=S                rank R's loss at step S is NaN (rank defaults to 0)
//   sleep:rank=R,step=S,seconds=T    rank R sleeps T seconds before step S (a straggler)
//   save-kill:rank=R,step=S,after=K  rank R SIGKILLs itself while writing checkpoint S, after K
//                                    tensors of its shard (K defaults to 1)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mt {

enum class FaultKind { kill, exit, nan, sleep, save_kill };

struct Fault {
  FaultKind kind;
  int rank = 0;
  int64_t step = 0;
  int code = 1;        // exit
  double seconds = 0;  // sleep
  int64_t after = 1;   // save-kill: tensors written first
};

// Throws std::invalid_argument with a message naming the spec and what is wrong.
Fault parse_fault(const std::string& spec);

class FaultPlan {
 public:
  FaultPlan() = default;
  explicit FaultPlan(std::vector<Fault> faults) : faults_(std::move(faults)) {}

  // The first problem for a job of `world_size` ranks (a rank that does not exist), or nothing.
  std::optional<std::string> check(int world_size) const;

  // At the start of step `step` on `rank`: kills, exits or sleeps as planned.
  void before_step(int rank, int64_t step) const;
  bool nan_loss(int rank, int64_t step) const;
  // Tensors rank `rank` writes of checkpoint `step` before dying, when planned.
  std::optional<int64_t> save_kill_after(int rank, int64_t step) const;

  bool empty() const { return faults_.empty(); }

 private:
  std::vector<Fault> faults_;
};

// Kills this process at once, as SIGKILL from outside would.
[[noreturn]] void kill_self();

}  // namespace mt
