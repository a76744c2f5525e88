#pragma once
// The training section: throughput, time breakdown and memory per strategy and rank count, with
// scaling efficiency and the comparison against the engine's reference strategy (DDP); and the
// runtime table saying how each configuration actually ran (sync mode, collectives, accumulation,
// resume and checkpoint state).
#include <optional>
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/machine_context.h"
#include "report/model/provenance_check.h"
#include "stats.h"

namespace mt {

// What a row's scaling efficiency can say. Ideal scaling (ranks × the 1-rank throughput) assumes
// every rank brings its own cores.
enum class ScalingBasis {
  Comparable,      // more cores than the baseline, none shared: the efficiency is the strategy's
  SameCores,       // no more cores than the 1-rank baseline used: ideal is 1×, not ranks×
  Oversubscribed,  // ranks × threads exceed the cores: the efficiency measures the machine
};

struct TrainingRow {
  const Group* group = nullptr;
  Summary tokens_per_sec, step_ms, data_ms, forward_backward_ms, optimizer_ms, peak_memory_mb;
  Summary model_state_mib;           // parameters + peak gradients + optimizer state (+ FSDP gathered) one rank holds
  const Group* one_rank = nullptr;   // same strategy and parameters at one rank
  const Group* reference = nullptr;  // the reference strategy at the same ranks and parameters
  std::optional<double> scaling_efficiency;          // tokens/s ÷ (1-rank tokens/s × ranks)
  std::optional<double> memory_saving_vs_reference;  // (reference − this) ÷ reference, peak memory
  std::optional<double> state_saving_vs_reference;   // (reference − this) ÷ reference, model state
  std::optional<double> step_delta_vs_reference;     // (this − reference) ÷ reference, step time
  CoreUse cores;
  ScalingBasis scaling_basis = ScalingBasis::Comparable;
};

// "4 ⚠oversubscribed" when the row's ranks shared cores, else "4".
std::string ranks_cell(const TrainingRow& row);
// The scaling efficiency as a reader may take it: a percentage, qualified or withheld by the basis.
std::string scaling_cell(const TrainingRow& row);

// One row per training group, ordered by strategy (as the experiments list them), ranks, label.
// `reference`: the strategy the rows are compared with (ReportData::reference_strategy); empty:
// no comparison.
std::vector<TrainingRow> training_rows(const std::vector<const Group*>& groups, const std::string& reference = "");

// "DDP": a strategy's name as the report's prose and column titles write it.
std::string strategy_title(const std::string& strategy);

// The group of `strategy` at `ranks` that is otherwise configured like `like`, from like's own study
// when it has one. When several differ only in gradient sync mode, the one requesting the same mode,
// else the one resolving to the same mode; nullptr when there is none.
const Group* comparable_group(const std::vector<const Group*>& groups, const Group& like, const std::string& strategy,
                              int ranks);

std::string render_training_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                    const std::string& reference);
std::string render_runtime_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance);

}  // namespace mt
