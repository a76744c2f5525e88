// The engine's description of `train`, as `mtengine train --describe` printed it, committed beside
// the tests so the runner's tests and fuzzers need no engine. The engine_description_current test
// fails when the engine's live description and this copy drift apart.
#pragma once

#include <fstream>
#include <sstream>

#include "experiment/engine_description.h"
#include "experiment/workload_params.h"

namespace mt {

inline void register_engine_fixture() {
  std::ifstream in(MT_ENGINE_DESCRIPTION_FILE);
  std::stringstream text;
  text << in.rdbuf();
  register_engine_workload(parse_workload_description(text.str()));
}

}  // namespace mt
