// The engine's descriptions of its workloads, as `mtengine WORKLOAD --describe` printed them
// (tests/data/engine_WORKLOAD_description.json), committed beside the tests so the runner's tests
// and fuzzers need no engine. A workload without such a file stays unavailable, as with an engine
// that cannot describe it. The engine_description_current test fails when the engine's live
// descriptions and these copies drift apart.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "experiment/engine_description.h"
#include "experiment/workload_params.h"

namespace mt {

inline void register_engine_fixture() {
  for (const auto& name : engine_workload_names()) {
    std::ifstream in(std::string(MT_ENGINE_DESCRIPTIONS_DIR) + "/engine_" + name + "_description.json");
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    register_engine_workload(parse_workload_description(text.str()));
  }
}

}  // namespace mt
