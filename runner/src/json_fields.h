#pragma once
// Reading one field of a JSON object a program wrote (a result, a stage's result, a rank's window):
// missing or of another type reads as absent, never as an error (results come from many programs
// and versions, and a workload may write anything).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mt {

// `object[key]` when it is a string; `otherwise` else (missing key, another type, not an object).
std::string text_field(const nlohmann::json& object, const char* key, const std::string& otherwise = "");

// Whether `object[key]` is the boolean true: false for anything else.
bool flag_field(const nlohmann::json& object, const char* key);

// `object[key]` when it is a finite number; nullopt else.
std::optional<double> number_field(const nlohmann::json& object, const char* key);

// `object[key]` when it is an object; an empty object else, so that lookups can be chained.
const nlohmann::json& object_field(const nlohmann::json& object, const char* key);

}  // namespace mt
