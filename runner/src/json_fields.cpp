#include "json_fields.h"

#include <cmath>

namespace mt {
namespace {

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

std::string text_field(const nlohmann::json& object, const char* key, const std::string& otherwise) {
  const nlohmann::json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : otherwise;
}

bool flag_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = member(object, key);
  return value && value->is_boolean() && value->get<bool>();
}

std::optional<double> number_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = member(object, key);
  if (!value || !value->is_number()) return std::nullopt;
  const double number = value->get<double>();
  return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
}

const nlohmann::json& object_field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json* value = member(object, key);
  return value && value->is_object() ? *value : empty;
}

}  // namespace mt
