#include "report/sections/answers_section.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "experiment/metric_catalogue.h"
#include "experiment/suggestion.h"
#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "report/model/contrast.h"
#include "report/model/measurement_window.h"

namespace mt {
namespace {

std::string metric_title(const std::string& metric) {
  if (auto info = known_metric(metric)) return info->title;
  return metric;
}

// Two decimals, three where the ratio is within 5 % of 1 and two would blur it, and two significant
// digits below 0.1.
int ratio_decimals(double ratio) {
  if (std::fabs(ratio - 1) < 0.05) return 3;
  if (ratio > 0 && ratio < 0.1) return std::min(6, 1 - static_cast<int>(std::floor(std::log10(ratio))));
  return 2;
}

// Text in bold, and a name as code, in markdown; as they are in plain text.
std::string strong(const std::string& text, AnswerText kind) {
  return kind == AnswerText::Markdown ? "**" + text + "**" : text;
}

std::string name(const std::string& text, AnswerText kind) { return kind == AnswerText::Markdown ? code(text) : text; }

std::vector<const Group*> groups_for(const Question& q, const AnswerInputs& in) {
  std::vector<const Group*> out = in.groups;
  if (q.study.empty()) return out;
  for (const Group* g : in.profiled) {
    if (g->study == q.study) out.push_back(g);
  }
  return out;
}

}  // namespace

std::string question_title(const Question& q, AnswerText kind) {
  std::string title = fmt::format("{}: {} vs {}", metric_title(q.metric), q.compare, q.baseline);
  if (!q.within.empty()) {
    std::string list;
    for (std::size_t i = 0; i < q.within.size(); ++i)
      list += (i == 0 ? "" : i + 1 == q.within.size() ? " and " : ", ") + q.within[i];
    title += ", within " + list;
  }
  if (!q.where.empty()) title += ", where " + q.where;
  std::string out = strong(title, kind);
  if (!q.study.empty()) out += fmt::format(" (study {})", name(q.study, kind));
  if (q.better == "higher" || q.better == "lower") out += fmt::format(" — {} is better", q.better);
  return out;
}

bool ci_starts_at_zero(const Answer& a) {
  return a.ratio_ci && a.ratio_ci->low < 0 && a.a.n > 0 && a.b.n > 0 && a.a.min >= 0 && a.b.min >= 0;
}

std::string answer_line(const Answer& a, int tested, AnswerText kind) {
  if (a.verdict == "not comparable") return fmt::format("{}: {}: {}", a.label, strong("not comparable", kind), a.note);
  std::string out = a.label + ": ";
  if (a.ratio) {
    const int d = ratio_decimals(*a.ratio);
    out += fmt::format("{}× {} (", fixed(*a.ratio, d), metric_title(a.metric));
    if (a.ratio_ci) {
      out += fmt::format("95 % CI {}–{}, ", ci_starts_at_zero(a) ? fixed(0.0, d) : fixed(a.ratio_ci->low, d),
                         fixed(a.ratio_ci->high, d));
    } else if (a.test) {
      out += "95 % CI unbounded, ";
    }
  } else {
    out += fmt::format("{} (", metric_title(a.metric));
  }
  out += fmt::format("n = {} + {}", a.a.n, a.b.n);
  if (a.adjusted_p) {
    out += fmt::format(", p{} {}", tested > 1 ? " (Holm)" : "", p_relation(*a.adjusted_p));
  }
  out += fmt::format("): {}", strong(a.verdict, kind));
  return a.note.empty() ? out : out + " (" + a.note + ")";
}

namespace {

// How the lists of answers are written: a markdown list in the report; indented under their
// question's title in plain text, saying where the summed-up answers are listed one by one.
struct ListStyle {
  AnswerText kind;
  const char* bullet;
  const char* listed_where;
};

constexpr ListStyle kMarkdownList{AnswerText::Markdown, "- ", "each listed under [All answers](#all-answers)"};
constexpr ListStyle kPlainList{AnswerText::Plain, "  - ", "each listed in the report (`mtrun report`)"};

// The answers' lines and the left-out comparisons of one question, as a list.
std::string full_list(const QuestionAnswers& qa, const ListStyle& style) {
  std::string out;
  for (const auto& a : qa.answers) out += style.bullet + answer_line(a, qa.tested, style.kind) + "\n";
  if (!qa.skipped.empty()) {
    out += std::string(style.bullet) + "Left out: ";
    for (std::size_t i = 0; i < qa.skipped.size(); ++i) out += (i ? "; " : "") + qa.skipped[i];
    out += ".\n";
  }
  return out;
}

bool beyond_noise(const Answer& a) {
  return a.verdict != "within noise" && a.verdict != "not enough data" && a.verdict != "not comparable";
}

// "2 faster, 16 within noise" over these answers, verdicts in a fixed order.
std::string verdict_counts(const std::vector<const Answer*>& answers) {
  static const char* kOrder[] = {"faster", "better",       "higher",          "slower",        "worse",
                                 "lower",  "within noise", "not enough data", "not comparable"};
  std::string out;
  for (const char* verdict : kOrder) {
    const auto n =
        std::count_if(answers.begin(), answers.end(), [verdict](const Answer* a) { return a->verdict == verdict; });
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, verdict);
  }
  return out;
}

// A question with many answers in a few lines: per compared value how many went each way and the
// range of the ratios, then the answers beyond noise with the highest and the lowest ratio.
std::string tally(const QuestionAnswers& qa, const ListStyle& style) {
  std::string out = fmt::format("{} comparisons", qa.answers.size());
  if (!qa.skipped.empty()) out += fmt::format(" ({} more left out)", qa.skipped.size());
  out += fmt::format(", {}:\n", style.listed_where);
  if (style.kind == AnswerText::Markdown) out += "\n";
  std::vector<std::string> values;
  for (const auto& a : qa.answers) {
    if (std::find(values.begin(), values.end(), a.compared) == values.end()) values.push_back(a.compared);
  }
  for (const auto& value : values) {
    std::vector<const Answer*> of;
    std::vector<double> ratios;
    for (const auto& a : qa.answers) {
      if (a.compared != value) continue;
      of.push_back(&a);
      if (a.ratio) ratios.push_back(*a.ratio);
    }
    std::string head = of.front()->label.substr(0, of.front()->label.find(','));
    out += fmt::format("{}{}: {}", style.bullet, head, verdict_counts(of));
    if (!ratios.empty()) {
      const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
      const double mid = median(ratios);
      out += fmt::format("; ratio {}× to {}×, median {}×", fixed(*lo, ratio_decimals(*lo)),
                         fixed(*hi, ratio_decimals(*hi)), fixed(mid, ratio_decimals(mid)));
    }
    out += "\n";
  }
  const Answer *high = nullptr, *low = nullptr;
  for (const auto& a : qa.answers) {
    if (!a.ratio || !beyond_noise(a)) continue;
    if (!high || *a.ratio > *high->ratio) high = &a;
    if (!low || *a.ratio < *low->ratio) low = &a;
  }
  if (high) out += style.bullet + ("highest ratio beyond noise: " + answer_line(*high, qa.tested, style.kind)) + "\n";
  if (low && low != high)
    out += style.bullet + ("lowest ratio beyond noise: " + answer_line(*low, qa.tested, style.kind)) + "\n";
  return out;
}

// The questions to answer, declared or else the defaults, each answered from the groups it applies to.
struct AnsweredQuestions {
  bool defaults = false;  // the experiment declares none: the default questions
  std::vector<QuestionAnswers> answered;
};

AnsweredQuestions answer_questions(const AnswerInputs& in) {
  AnsweredQuestions out;
  std::vector<Question> questions = in.questions;
  out.defaults = questions.empty();
  if (out.defaults) questions = default_questions(in.groups, in.reference_strategy);
  for (const auto& q : questions) out.answered.push_back(answer_question(q, groups_for(q, in), in.planned));
  return out;
}

// The names trials recorded values under (their metrics and their result rows' fields), whether
// or not their machine was quiet.
std::set<std::string> recorded_names(const std::vector<ReportTrial>& trials) {
  std::set<std::string> names;
  for (const ReportTrial& t : trials) {
    for (const auto& [name, value] : t.metrics) names.insert(name);
    for (const auto& row : t.rows) {
      if (!row.is_object()) continue;
      for (const auto& [key, value] : row.items()) names.insert(key);
    }
  }
  return names;
}

// Why a question has no answer at all: no trial recorded its metric (a name none of them records,
// with the one meant), none with a value of its axis, or those that did ran only on a disturbed
// machine.
std::string nothing_to_answer(const Question& q, const AnswerInputs& in, AnswerText kind) {
  if (in.planned) {
    const std::set<std::string> names = recorded_names(*in.planned);
    if (!names.empty() && !names.count(q.metric)) {
      return fmt::format("no trial recorded a metric named {}{}", name(q.metric, kind),
                         did_you_mean(q.metric, {names.begin(), names.end()}));
    }
  }
  const int disturbed_only = in.disturbed_only;
  if (disturbed_only == 0) {
    return fmt::format("no trial recorded {} with a value of {}", name(q.metric, kind), name(q.compare, kind));
  }
  return fmt::format(
      "no trial on a quiet machine recorded {} with a value of {}: {} configuration{} ran only on a disturbed "
      "machine and {} left out ({} keeps them)",
      name(q.metric, kind), name(q.compare, kind), disturbed_only, disturbed_only == 1 ? "" : "s",
      disturbed_only == 1 ? "is" : "are", name("mtrun report --keep-disturbed", kind));
}

bool summed_up(const QuestionAnswers& qa) { return qa.answers.size() + (qa.skipped.empty() ? 0 : 1) > kListedAnswers; }

// The answers' sides whose step time still moved one way over the measured window
// (measurement_window.h): every answer they are a side of leans with them.
std::vector<std::string> drift_notes(const std::vector<QuestionAnswers>& answered) {
  std::vector<const Group*> seen;
  std::vector<std::string> notes;
  for (const auto& qa : answered) {
    for (const auto& a : qa.answers) {
      for (const Group* g : a.sides) {
        if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
        seen.push_back(g);
        if (std::string note = drift_note(*g); !note.empty()) {
          notes.push_back(note + ", and so does every answer it is a side of");
        }
      }
    }
  }
  return notes;
}

}  // namespace

RenderedAnswers render_answers(const AnswerInputs& in) {
  RenderedAnswers out;
  std::string& md = out.section;
  md = "## Answers\n\n";
  const auto [defaults, answered] = answer_questions(in);
  if (answered.empty()) {
    md += fmt::format(
        "No questions: the experiment declares none (`questions:` in its file), and its axes suggest none "
        "(a strategy against {}, a rank count against the smallest) on a metric whose better direction is "
        "known. The sections below describe what ran.\n\n",
        in.reference_strategy);
    return out;
  }
  if (defaults) {
    md += fmt::format(
        "The experiment declares no questions (`questions:` in its file), so these are the default ones: each "
        "strategy against {} and each rank count against the smallest, within the other axes.",
        in.reference_strategy);
  } else {
    md += fmt::format("Questions {}.", in.source);
  }
  const bool summed = std::any_of(answered.begin(), answered.end(), summed_up);
  md += fmt::format(
      " Each line gives the ratio of means, compared ÷ baseline, with its 95 % confidence interval (Fieller), "
      "the successful repeats on each side, and the two-sided Welch p; where a question has several lines, p "
      "(Holm) corrects for testing them together, and at p ≥ {:.2f} the difference is *within noise*. Disturbed "
      "attempts are {}, as everywhere in this report (`docs/measurement.md`).",
      kNoiseThreshold, in.keep_disturbed ? "kept in" : "left out");
  const bool clamped = std::any_of(answered.begin(), answered.end(), [](const QuestionAnswers& qa) {
    return std::any_of(qa.answers.begin(), qa.answers.end(), ci_starts_at_zero);
  });
  if (clamped) {
    md +=
        " Where Fieller's interval reaches below zero (a side whose spread is about as large as its mean), "
        "the interval is shown from 0: a ratio of figures that are never negative cannot be below it.";
  }
  if (summed) {
    md += fmt::format(
        " A question with more than {} answers is summed up: how many went each way, and the answers beyond "
        "noise with the highest and the lowest ratio.",
        kListedAnswers);
  }
  md += "\n\n";
  for (const auto& qa : answered) {
    const Question& q = qa.question;
    md += question_title(q, AnswerText::Markdown) + "\n\n";
    if (qa.answers.empty() && qa.skipped.empty()) {
      std::string why = nothing_to_answer(q, in, AnswerText::Markdown);
      why[0] = 'N';
      md += "- " + why + ".\n\n";
      continue;
    }
    if (!summed_up(qa)) {
      md += full_list(qa, kMarkdownList) + "\n";
      continue;
    }
    md += tally(qa, kMarkdownList) + "\n";
    out.all += question_title(q, AnswerText::Markdown) + "\n\n" +
               fmt::format("<details><summary>{} answers{}</summary>\n\n", qa.answers.size(),
                           qa.skipped.empty() ? "" : fmt::format(", {} left out", qa.skipped.size())) +
               full_list(qa, kMarkdownList) + "\n</details>\n\n";
  }
  for (const auto& note : drift_notes(answered))
    md += note + " (see [Measurement conditions](#measurement-conditions)).\n\n";
  if (!out.all.empty()) {
    out.all = "## All answers\n\nEvery answer to the questions summed up under [Answers](#answers).\n\n" + out.all;
  }
  return out;
}

std::string answers_as_text(const AnswerInputs& in) {
  const auto [defaults, answered] = answer_questions(in);
  if (answered.empty()) return "";
  std::string out = fmt::format(
      "{} (compared ÷ baseline: ratio of means, its 95 % CI, Welch p; within noise at p ≥ {:.2f}; disturbed "
      "attempts {}):\n",
      defaults ? "answers to the default questions (the experiment declares none)"
               : "answers to the experiment's questions",
      kNoiseThreshold, in.keep_disturbed ? "kept in" : "left out");
  for (const auto& qa : answered) {
    out += question_title(qa.question, AnswerText::Plain) + "\n";
    if (qa.answers.empty() && qa.skipped.empty()) {
      out += kPlainList.bullet + nothing_to_answer(qa.question, in, AnswerText::Plain) + "\n";
    } else {
      out += summed_up(qa) ? "  " + tally(qa, kPlainList) : full_list(qa, kPlainList);
    }
  }
  const bool few = std::any_of(answered.begin(), answered.end(), [](const QuestionAnswers& qa) {
    return std::any_of(qa.answers.begin(), qa.answers.end(),
                       [](const Answer& a) { return a.a.n < kRepeatsForSpread || a.b.n < kRepeatsForSpread; });
  });
  if (few) {
    out += fmt::format(
        "fewer than {} repeats on a side: its interval and p are rough (`repeat: {{min: 3, max: 20, target_ci_pct: "
        "2}}` "
        "repeats each configuration until its mean's 95 % CI is within ± 2 %)\n",
        kRepeatsForSpread);
  }
  for (const auto& note : drift_notes(answered)) out += note + " (`mtrun report`, Measurement conditions)\n";
  return out;
}

}  // namespace mt
