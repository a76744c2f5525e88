#pragma once
// Reading the stages a chain's attempt ran (schemas/store.sql, table stages), for status and
// reports. A database from before chains has none.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

struct StageRow {
  int position = 0;
  std::string name;
  std::string workload;
  std::string expected;
  std::string state;
  std::string observed;
  std::optional<bool> met;  // nullopt while running
  std::string mismatch;
  std::optional<double> duration_s;
  std::string log_path;
  std::string result_json;  // "" when the stage wrote none
};

// In chain order.
std::vector<StageRow> attempt_stages(Database& db, std::int64_t attempt_id);

}  // namespace mt
