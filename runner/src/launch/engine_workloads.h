// Teaches mtrun the engine's workloads from the engine itself: runs `ENGINE SUBCOMMAND --describe`
// and registers the parameters it lists (see experiment/engine_description.h). Descriptions are
// cached per engine binary (by content hash) under $XDG_CACHE_HOME/mtrun (else ~/.cache/mtrun),
// so planning does not start the engine every time. An engine gets $MTRUN_DESCRIBE_TIMEOUT seconds
// (default 30) to describe a workload, else it is killed. A workload the engine cannot describe is
// marked unavailable with the reason, which a study using it reports.
#pragma once

#include <filesystem>

namespace mt {

void load_engine_workloads(const std::filesystem::path& engine);

}  // namespace mt
