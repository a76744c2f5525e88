#include "training/strategy/strategy_table.h"

namespace mt {

std::unique_ptr<Strategy> make_ddp(const StrategyOptions& options);
std::unique_ptr<Strategy> make_fsdp(const StrategyOptions& options);
std::unique_ptr<Strategy> make_zero1(const StrategyOptions& options);
std::unique_ptr<Strategy> make_zero2(const StrategyOptions& options);

const std::vector<StrategyEntry>& strategy_table() {
  static const std::vector<StrategyEntry> table = {
      {"ddp", SyncMode::last, &make_ddp},
      {"fsdp", SyncMode::every, &make_fsdp},
      {"zero1", SyncMode::last, &make_zero1},
      {"zero2", SyncMode::every, &make_zero2},
  };
  return table;
}

const char* reference_strategy() { return strategy_table().front().name; }

const StrategyEntry* find_strategy(std::string_view name) {
  for (const auto& entry : strategy_table())
    if (name == entry.name) return &entry;
  return nullptr;
}

std::string available_strategies() {
  std::string out;
  for (const auto& entry : strategy_table()) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

const char* sync_mode_name(SyncMode mode) { return mode == SyncMode::every ? "every" : "last"; }

}  // namespace mt
