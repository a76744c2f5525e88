#pragma once
// Where the model state of each training configuration sits — parameters, gradients at their
// peak, optimizer state, FSDP's gathered parameters — and, wherever a strategy holds more than
// the reference strategy (DDP) at the same ranks, which component costs the difference and why.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/provenance_check.h"

namespace mt {

// "" when no configuration reports its model state.
// `reference`: the strategy the others are compared with (ReportData::reference_strategy).
std::string render_memory_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                  const std::string& reference);

}  // namespace mt
