// Whole numbers read from JSON a file brought (a checkpoint's metadata.json or shard header, a
// safetensors header): integers of the JSON kind, within the range asked for, or an InputError
// naming the field (callers say which file). nlohmann's own get<int64_t>() would truncate 1.5 to 1,
// and convert 1e300 with undefined behaviour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/job/input_error.h"

namespace mt {

inline int64_t whole_number(const nlohmann::json& value, const std::string& what, int64_t lowest, int64_t highest) {
  const bool fits = value.is_number_unsigned() ? value.get<uint64_t>() <= uint64_t(highest)
                                               : value.is_number_integer() && value.get<int64_t>() <= highest;
  if (!fits || value.get<int64_t>() < lowest)
    throw InputError(fmt::format("{} {} is not a whole number in [{}, {}]", what, value.dump(), lowest, highest));
  return value.get<int64_t>();
}

// `object[key]` as above; a missing key is damage too.
inline int64_t whole_field(const nlohmann::json& object, const char* key, int64_t lowest, int64_t highest) {
  if (!object.is_object() || !object.contains(key)) throw InputError(fmt::format("{} is missing", key));
  return whole_number(object.at(key), key, lowest, highest);
}

// A tensor's shape: a list of whole dimensions, each in [lowest, 2^62] (a caller that explains a
// negative one itself lets it through).
inline std::vector<int64_t> shape_field(const nlohmann::json& object, const char* key, int64_t lowest = 0) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_array())
    throw InputError(fmt::format("{} is not a list of dimensions", key));
  std::vector<int64_t> shape;
  for (const auto& d : object.at(key))
    shape.push_back(whole_number(d, std::string(key) + " dimension", lowest, 1LL << 62));
  return shape;
}

}  // namespace mt
