#pragma once
// The `rows` of a result (README: hostile output): an array of JSON objects, one per measurement
// (mtengine comm writes one per collective, size, placement and split), kept in the store's
// result_rows table as written. Bounded in count and in size per row, so no result can flood the
// database.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mt {

struct RowLimits {
  std::size_t max_rows = 10000;
  std::size_t max_row_bytes = 16 * 1024;  // one row as JSON text
};

struct ResultRows {
  std::vector<std::string> rows;  // each a JSON object's text; empty when refused or absent
  std::string problem;            // why `rows` was refused ("has 20000 rows, more than 10000"); empty otherwise
};

// The result's `rows`; none when it has no `rows` key. `rows` that is not an array of objects, or
// breaks a limit, is refused whole.
ResultRows read_result_rows(const nlohmann::json& result, const RowLimits& limits = {});

}  // namespace mt
