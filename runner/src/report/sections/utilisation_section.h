#pragma once
// How much of the machine a training configuration used: model FLOPs utilisation (MFU) from the
// engine's `mfu` result fields, against the peak the engine measured (its SGEMM calibration) and
// the CPU's fp32 vector peak. Shown only for results that carry it (engines from the version that
// writes `mfu`), so older reports read as they did.
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// "## Model FLOPs utilisation": one row per training group with `mfu.*` metrics; "" when none.
std::string render_utilisation_section(const std::vector<const Group*>& training);

}  // namespace mt
