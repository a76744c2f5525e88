// Everything `mtengine comm` is told, its option table and its validation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/option_table.h"

namespace mt {

struct CommConfig {
  std::string ops = "all";   // comma-separated collectives, or all
  int64_t min_bytes = 1024;  // message sizes: min, min × factor, ... up to max
  int64_t max_bytes = 64 << 20;
  double step_factor = 2;
  std::string sizes;  // explicit comma-separated sizes in bytes (overrides the sweep)
  int64_t warmup = 5;
  int64_t iters = 20;
  // Small messages run more timed iterations: iters × the size's element count × 4 ≥ timed_bytes,
  // so a call of a microsecond is not timed over a handful of calls; 0: iters alone.
  int64_t timed_bytes = 0;
  std::string placement = "both";  // in_place, out_of_place, both
  std::string split = "both";      // all_to_all: equal, uneven, both
  JobOptions job;                  // --backend, --collective-timeout, --output
};

OptionTable comm_option_table(CommConfig& config);
std::optional<std::string> validate(const CommConfig& config);

// The message sizes in bytes the run sweeps, in order; throws std::invalid_argument on a bad list.
std::vector<int64_t> message_sizes(const CommConfig& config);
// The collectives the run measures, in table order; throws std::invalid_argument naming an unknown one.
std::vector<std::string> selected_ops(const CommConfig& config);

}  // namespace mt
