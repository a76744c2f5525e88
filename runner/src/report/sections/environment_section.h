#pragma once
// The environment and provenance section: one row per stack (revision, image, the program that ran
// and how completely it was recorded), then what decides CPU numbers per stack — CPU, cores,
// memory, BLAS, floating-point mode, libraries — and the command each study was launched with.
#include <string>

#include "report/model/provenance_check.h"

namespace mt {

// `has_conditions`: the report has a measurement-conditions section to point to.
std::string render_environment_section(const ProvenanceAnalysis& analysis, bool has_conditions);

}  // namespace mt
