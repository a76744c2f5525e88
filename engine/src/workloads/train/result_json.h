// Result JSON of `mtengine train` (schemas/result.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/env/environment.h"
#include "training/trainer/config.h"
#include "training/trainer/metrics.h"
#include "training/trainer/trainer.h"
#include "core/job/workload.h"

namespace mt {

nlohmann::json train_result_json(const TrainConfig& config, int world_size, const RankRun& run,
                                 const TrainSummary& summary, const Environment& env);

// A failed run: the configuration and whatever is known, plus status "error".
nlohmann::json error_result_json(const TrainConfig& config, int world_size, const RunError& error,
                                 const Environment& env);

}  // namespace mt
