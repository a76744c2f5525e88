#include "report/answers_section.h"

#include <cmath>

#include <fmt/format.h>

#include "experiment/metric_catalogue.h"
#include "report/cells.h"
#include "report/markdown_table.h"
#include "report/contrast.h"

namespace mt {
namespace {

std::string metric_title(const std::string& metric) {
  if (auto info = known_metric(metric)) return info->title;
  return metric;
}

// Two decimals, three where the ratio is within 5 % of 1 and two would blur it.
int ratio_decimals(double ratio) { return std::fabs(ratio - 1) < 0.05 ? 3 : 2; }

std::string question_title(const Question& q) {
  std::string out = fmt::format("**{}: {} vs {}", metric_title(q.metric), q.compare, q.baseline);
  if (!q.within.empty()) {
    std::string list;
    for (std::size_t i = 0; i < q.within.size(); ++i)
      list += (i == 0 ? "" : i + 1 == q.within.size() ? " and " : ", ") + q.within[i];
    out += ", within " + list;
  }
  out += "**";
  if (!q.study.empty()) out += fmt::format(" (study {})", code(q.study));
  if (q.better == "higher" || q.better == "lower") out += fmt::format(" — {} is better", q.better);
  return out;
}

std::vector<const Group*> groups_for(const Question& q, const AnswerInputs& in) {
  std::vector<const Group*> out = in.groups;
  if (q.study.empty()) return out;
  for (const Group* g : in.profiled) {
    if (g->study == q.study) out.push_back(g);
  }
  return out;
}

}  // namespace

std::string answer_line(const Answer& a, int tested) {
  if (a.verdict == "not comparable") return fmt::format("{}: **not comparable**: {}", a.label, a.note);
  std::string out = a.label + ": ";
  if (a.ratio) {
    const int d = ratio_decimals(*a.ratio);
    out += fmt::format("{}× {} (", fixed(*a.ratio, d), metric_title(a.metric));
    if (a.ratio_ci) {
      out += fmt::format("95 % CI {}–{}, ", fixed(a.ratio_ci->low, d), fixed(a.ratio_ci->high, d));
    } else if (a.test) {
      out += "95 % CI unbounded, ";
    }
  } else {
    out += fmt::format("{} (", metric_title(a.metric));
  }
  out += fmt::format("n = {} + {}", a.a.n, a.b.n);
  if (a.adjusted_p) {
    out += tested > 1 ? fmt::format(", p (Holm) {}", *a.adjusted_p < 0.001 ? "< 0.001" : "= " + fixed(*a.adjusted_p, 3))
                      : fmt::format(", p {}", *a.adjusted_p < 0.001 ? "< 0.001" : "= " + fixed(*a.adjusted_p, 3));
  }
  out += fmt::format("): **{}**", a.verdict);
  return a.note.empty() ? out : out + " (" + a.note + ")";
}

std::string render_answers(const AnswerInputs& in) {
  std::string out = "## Answers\n\n";
  std::vector<Question> questions = in.questions;
  const bool defaults = questions.empty();
  if (defaults) questions = default_questions(in.groups);
  if (questions.empty()) {
    return out +
           "No questions: the experiment declares none (`questions:` in its file), and its axes suggest none "
           "(a strategy against ddp, a rank count against the smallest) on a metric whose better direction is "
           "known. The sections below describe what ran.\n\n";
  }
  if (defaults) {
    out +=
        "The experiment declares no questions (`questions:` in its file), so these are the default ones: each "
        "strategy against ddp and each rank count against the smallest, within the other axes.";
  } else {
    out += fmt::format("Questions {}.", in.source);
  }
  out += fmt::format(
      " Each line gives the ratio of means, compared ÷ baseline, with its 95 % confidence interval (Fieller), "
      "the successful repeats on each side, and the two-sided Welch p; where a question has several lines, p "
      "(Holm) corrects for testing them together, and at p ≥ {:.2f} the difference is *within noise*. Disturbed "
      "attempts are left out, as everywhere in this report (`docs/measurement.md`).\n\n",
      kNoiseThreshold);
  for (const auto& q : questions) {
    QuestionAnswers qa = answer_question(q, groups_for(q, in));
    out += question_title(q) + "\n\n";
    for (const auto& a : qa.answers) out += "- " + answer_line(a, qa.tested) + "\n";
    if (qa.answers.empty() && qa.skipped.empty()) {
      out += fmt::format("- No trial recorded {} with a value of {}.\n", code(q.metric), code(q.compare));
    }
    if (!qa.skipped.empty()) {
      out += "- Left out: ";
      for (std::size_t i = 0; i < qa.skipped.size(); ++i) out += (i ? "; " : "") + qa.skipped[i];
      out += ".\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace mt
