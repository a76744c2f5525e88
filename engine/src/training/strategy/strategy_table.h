// The one table of strategies: name -> factory. Adding a strategy is one file and one line here.
// Torch-free so configuration validation can consult it cheaply.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"

namespace mt {

class Strategy;

enum class SyncMode { every, last };

struct StrategyOptions {
  Communicator* comm = nullptr;
  SyncMode sync_mode = SyncMode::last;  // already resolved from "auto"
  double bucket_cap_mb = 25.0;
  double first_bucket_cap_mb = 1.0;  // DDP: the first bucket is small so reduction starts early
  ElementType grad_reduce_type = ElementType::f32;
  bool backward_prefetch = false;  // FSDP: gather the next unit while this one runs backward
};

struct StrategyEntry {
  const char* name;
  SyncMode auto_sync_mode;  // what --gradient-sync-mode auto means for this strategy
  std::unique_ptr<Strategy> (*make)(const StrategyOptions& options);
};

// The first entry is the reference strategy: --strategy's default, and the one reports compare the
// others with (the runner reads it as the default in `mtengine train --describe`).
const std::vector<StrategyEntry>& strategy_table();
const char* reference_strategy();
const StrategyEntry* find_strategy(std::string_view name);
std::string available_strategies();  // "ddp, ..." for messages

const char* sync_mode_name(SyncMode mode);

}  // namespace mt
