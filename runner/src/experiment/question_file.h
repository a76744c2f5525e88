#pragma once
// The questions of an experiment file read on their own, for `mtrun report --questions FILE`: the
// studies are read only as far as the questions need them (names, workloads, the values of their
// axes and defaults, the directions of `command` metrics), so no engine is needed to read them.
#include <filesystem>
#include <vector>

#include "experiment/diagnostic.h"
#include "experiment/question.h"

namespace mt {

struct QuestionFile {
  std::vector<Question> questions;  // of the experiment, then of each study
  std::vector<Diagnostic> errors;   // file:line:col, as the experiment loader gives them
};

QuestionFile read_question_file(const std::filesystem::path& file);

}  // namespace mt
