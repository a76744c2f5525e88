// Reading the engine's description of a workload (`mtengine train --describe`: every flag with
// its type, default, choices, bounds, and the relations between flags) into a WorkloadSpec.
#pragma once

#include <string>

#include "experiment/workload_params.h"

namespace mt {

// Throws std::runtime_error saying what is wrong with the text.
WorkloadSpec parse_workload_description(const std::string& json_text);

}  // namespace mt
