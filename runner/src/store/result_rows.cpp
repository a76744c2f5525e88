#include "store/result_rows.h"

#include <fmt/format.h>

namespace mt {

ResultRows read_result_rows(const nlohmann::json& result, const RowLimits& limits) {
  ResultRows out;
  if (!result.is_object()) return out;
  auto it = result.find("rows");
  if (it == result.end()) return out;
  if (!it->is_array()) {
    out.problem = "'rows' must be an array of objects";
    return out;
  }
  if (it->size() > limits.max_rows) {
    out.problem = fmt::format("'rows' has {} rows, more than {}", it->size(), limits.max_rows);
    return out;
  }
  std::vector<std::string> rows;
  rows.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& row = (*it)[i];
    if (!row.is_object()) {
      out.problem = fmt::format("row {} of 'rows' is not an object", i);
      return out;
    }
    std::string text = row.dump();
    if (text.size() > limits.max_row_bytes) {
      out.problem = fmt::format("row {} of 'rows' is {} bytes, more than {}", i, text.size(), limits.max_row_bytes);
      return out;
    }
    rows.push_back(std::move(text));
  }
  out.rows = std::move(rows);
  return out;
}

}  // namespace mt
