// Result JSON of `mtengine train` (schemas/result.schema.json) and its atomic write.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "env/environment.h"
#include "train/config.h"
#include "train/metrics.h"
#include "train/trainer.h"

namespace mt {

nlohmann::json train_result_json(const TrainConfig& config, int world_size, const RankRun& run,
                                 const TrainSummary& summary, const Environment& env);

struct RunError {
  std::optional<int> rank;     // nullopt: unknown or all ranks
  std::optional<int64_t> step;
  std::string reason;
  std::string policy;          // empty: not recorded
};

// A failed run: the configuration and whatever is known, plus status "error".
nlohmann::json error_result_json(const TrainConfig& config, int world_size, const RunError& error,
                                 const Environment& env);

// Writes to a temporary file beside `path` and renames it into place, so a reader never sees a
// partial file. Throws std::runtime_error naming the path on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& document);

}  // namespace mt
