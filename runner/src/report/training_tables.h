#pragma once
// The training section: throughput, time breakdown and memory per strategy and rank count, with
// scaling efficiency and the comparison against DDP; and the runtime table saying how each
// configuration actually ran (sync mode, collectives, accumulation, resume and checkpoint state).
#include <optional>
#include <string>
#include <vector>

#include "report/groups.h"
#include "report/provenance_check.h"
#include "stats.h"

namespace mt {

struct TrainingRow {
  const Group* group = nullptr;
  Summary tokens_per_sec, step_ms, data_ms, forward_backward_ms, optimizer_ms, peak_memory_mb;
  Summary model_state_mib;  // parameters + peak gradients + optimizer state one rank holds
  const Group* one_rank = nullptr;  // same strategy and parameters at one rank
  const Group* ddp = nullptr;       // DDP at the same ranks and parameters
  std::optional<double> scaling_efficiency;    // tokens/s ÷ (1-rank tokens/s × ranks)
  std::optional<double> memory_saving_vs_ddp;  // (DDP − this) ÷ DDP, peak memory
  std::optional<double> state_saving_vs_ddp;   // (DDP − this) ÷ DDP, model state
  std::optional<double> step_delta_vs_ddp;     // (this − DDP) ÷ DDP, step time
};

// Per trial that reports all three, MiB of parameters, gradients (their peak: FSDP's `last` mode
// keeps full ones through accumulation) and optimizer state held by one rank — the engine's exact
// `memory.*` accounting, where peak RSS also counts LibTorch's own few hundred MiB.
std::vector<double> model_state_mib(const Group& group);

// One row per training group, ordered by strategy (ddp, fsdp, zero1, zero2, others), ranks, label.
std::vector<TrainingRow> training_rows(const std::vector<const Group*>& groups);

// The group of `strategy` at `ranks` that is otherwise configured like `like`. When several differ only
// in gradient sync mode, the one requesting the same mode, else the one resolving to the same mode;
// nullptr when there is none.
const Group* comparable_group(const std::vector<const Group*>& groups, const Group& like, const std::string& strategy,
                              int ranks);

std::string render_training_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);
std::string render_runtime_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);

}  // namespace mt
