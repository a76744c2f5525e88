// Result JSON of `mtengine train` (schemas/result.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "env/environment.h"
#include "train/config.h"
#include "train/metrics.h"
#include "train/trainer.h"
#include "workload/workload.h"

namespace mt {

nlohmann::json train_result_json(const TrainConfig& config, int world_size, const RankRun& run,
                                 const TrainSummary& summary, const Environment& env);

// A failed run: the configuration and whatever is known, plus status "error".
nlohmann::json error_result_json(const TrainConfig& config, int world_size, const RunError& error,
                                 const Environment& env);

}  // namespace mt
