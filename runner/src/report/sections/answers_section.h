#pragma once
// The report's first section: one line per question and configuration, "fsdp vs ddp, ranks = 2:
// 0.62× tokens/s (95 % CI 0.55–0.70, n = 5 + 5, p = 0.003): **slower**", saying where the
// questions came from (the campaign, a file given to `report --questions`, or the defaults). A
// question with many answers is summed up there and listed in full further down.
#include <cstddef>
#include <string>
#include <vector>

#include "experiment/question.h"
#include "report/model/answers.h"

namespace mt {

struct AnswerInputs {
  std::vector<Question> questions;  // empty: default questions from the groups' axes
  // where they were declared, completing "Questions …": "declared in `experiments/x.yaml` (given
  // with `report --questions`)"
  std::string source;
  std::vector<const Group*> groups;    // unprofiled
  std::vector<const Group*> profiled;  // answered only by questions scoped to their study
  std::string reference_strategy;      // the default questions' baseline strategy
  bool keep_disturbed = false;         // attempts on a disturbed machine are in the groups
  // Configurations left out because every successful attempt of theirs ran on a disturbed machine
  // (none when keep_disturbed): what a question with nothing to answer may be missing.
  int disturbed_only = 0;
  // Every trial of the campaigns, whatever its outcome: why a comparison lacks its baseline.
  const std::vector<ReportTrial>* planned = nullptr;
};

// Questions with more answers than this are summed up in the section and listed in full under "All
// answers", further down the report.
inline constexpr std::size_t kListedAnswers = 8;

struct RenderedAnswers {
  std::string section;  // "## Answers": the report's first section
  std::string all;      // "## All answers": the full lists of the questions summed up; empty when none
};

RenderedAnswers render_answers(const AnswerInputs& in);

// Whether the answer's ratio interval is shown from 0: Fieller's lower end below zero for figures
// that are never negative (a side whose spread is about as large as its mean).
bool ci_starts_at_zero(const Answer& answer);

// How an answer is written: in a markdown report (verdicts in bold, names as code), or as plain text
// for a terminal.
enum class AnswerText { Markdown, Plain };

// A question as its answers are headed: "tokens/s: strategy vs ddp, within ranks — higher is
// better" (in markdown the question in bold, a study's name as code).
std::string question_title(const Question& q, AnswerText kind);

// One answer as its line, without the leading "- ".
std::string answer_line(const Answer& a, int tested, AnswerText kind = AnswerText::Markdown);

// The answers as plain text, as `mtrun run` prints them after its summary table: a line saying how to
// read them, then each question's title with its answers (or its tally) indented below it. Empty
// when there is no question to answer (none declared, and the axes suggest none).
std::string answers_as_text(const AnswerInputs& in);

}  // namespace mt
