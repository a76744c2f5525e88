#pragma once
// The answers to an experiment's questions (experiment/question.h), from the raw per-trial values:
// for each value of the compared axis and each configuration of the `within` axes, the ratio of
// means against the baseline with its confidence interval (Fieller), a Welch test, Holm over the
// answers of one question, and a verdict. Experiments that ask nothing get default questions from
// their axes. The Answers section (answers_section.h) renders them.
#include <optional>
#include <string>
#include <vector>

#include "experiment/question.h"
#include "report/model/groups.h"
#include "stats.h"

namespace mt {

// The default questions for these groups: each strategy against `reference`, the engine's reference
// strategy (when strategy varies and the reference is among its values), and each rank count
// against the smallest (when ranks vary), each within the other axes, on the metric that says
// "faster" for their kind (tokens/s for training).
std::vector<Question> default_questions(const std::vector<const Group*>& groups, const std::string& reference);

struct Answer {
  std::string label;     // "fsdp vs ddp, ranks = 2"
  std::string compared;  // the compared axis's value: "fsdp"
  std::string metric;
  Summary a, b;  // the compared value's side, the baseline's
  std::optional<double> ratio;
  std::optional<Interval> ratio_ci;  // 95 %, Fieller
  std::optional<WelchTest> test;
  std::optional<double> adjusted_p;  // Holm over the tested answers of the question
  // "faster", "slower" (times and rates), "better", "worse" (other metrics), "within noise", "not
  // enough data" (fewer than two values a side), "not comparable" (see note)
  std::string verdict;
  std::string note;                 // why not comparable; or what the baseline is made of when groups were pooled
  std::vector<const Group*> sides;  // the compared group, then the baseline's (each, where pooled)
};

struct QuestionAnswers {
  Question question;
  std::vector<Answer> answers;
  // Comparisons left out, with why: "ddp every vs last, ranks = 1: the same resolved configuration".
  std::vector<std::string> skipped;
  int tested = 0;  // answers with a Welch test: the Holm family
};

// The answers to `question` from these groups (profiled groups only when the question is scoped to
// their study: the caller passes what applies). `planned`, every trial of the campaigns whatever its
// outcome, tells a baseline that did not succeed from one the experiment never runs (its `where` or
// `exclude`) when a comparison is left out for want of one.
QuestionAnswers answer_question(const Question& question, const std::vector<const Group*>& groups,
                                const std::vector<ReportTrial>* planned = nullptr);

// The verdict of one answer from its ratio and Holm-adjusted p, for a metric where `better` is
// "higher" or "lower": faster/slower for times and rates, better/worse for anything else.
std::string answer_verdict(const std::string& metric, const std::string& better, std::optional<double> ratio,
                           std::optional<double> adjusted_p, bool enough_data);

// The configuration a group actually ran: its parameters with what the program resolved them to
// (`resolved_NAME` in its result), without gradient_sync_mode where it changes nothing (one rank,
// or one micro-batch a step). Two groups that agree here ran the same thing.
std::vector<std::pair<std::string, std::string>> effective_configuration(const Group& group);

}  // namespace mt
