#pragma once
// Reading one field of a result's JSON object the way reports do: missing or of another type reads
// as empty, never as an error (results come from many programs and versions).
#include <string>

#include <nlohmann/json.hpp>

namespace mt {

// `object[key]` when it is a string; "" otherwise (missing key, another type, not an object).
std::string text_field(const nlohmann::json& object, const char* key);

}  // namespace mt
