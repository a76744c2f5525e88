#pragma once
// Questions as JSON, kept with the campaign (in its `measurement` column, under "questions"), so a
// report answers them without the experiment file.
#include <optional>
#include <string>
#include <vector>

#include "experiment/question.h"

namespace mt {

std::string questions_to_json(const std::vector<Question>& questions);
// nullopt when `measurement_json` holds no "questions" (a campaign run before they were kept, or
// an experiment without any); malformed entries are skipped.
std::optional<std::vector<Question>> questions_from_measurement(const std::string& measurement_json);

}  // namespace mt
