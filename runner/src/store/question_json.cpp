#include "store/question_json.h"

#include <nlohmann/json.hpp>

#include "json_fields.h"

namespace mt {

std::string questions_to_json(const std::vector<Question>& questions) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& q : questions) {
    nlohmann::ordered_json j = {{"metric", q.metric},
                                {"compare", q.compare},
                                {"baseline", q.baseline},
                                {"within", q.within},
                                {"better", q.better}};
    if (!q.study.empty()) j["study"] = q.study;
    if (!q.where.empty()) j["where"] = q.where;
    out.push_back(std::move(j));
  }
  return out.dump();
}

std::optional<std::vector<Question>> questions_from_measurement(const std::string& measurement_json) {
  const auto j = nlohmann::json::parse(measurement_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("questions") || !j["questions"].is_array()) return std::nullopt;
  std::vector<Question> out;
  for (const auto& e : j["questions"]) {
    if (!e.is_object()) continue;
    auto text = [&e](const char* key) { return text_field(e, key); };
    Question q{text("metric"), text("compare"), text("baseline"), {}, text("better"), text("study"), {}, text("where")};
    if (e.contains("within") && e["within"].is_array()) {
      for (const auto& w : e["within"]) {
        if (w.is_string()) q.within.push_back(w.get<std::string>());
      }
    }
    if (q.metric.empty() || q.compare.empty() || q.baseline.empty()) continue;
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace mt
