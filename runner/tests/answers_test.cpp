// Questions and their answers: what an experiment may ask, the default questions, the verdicts and
// the confidence interval of a ratio of means.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "engine_fixture.h"
#include "experiment/experiment_check.h"
#include "experiment/question_file.h"
#include "experiment/workload_params.h"
#include "report/model/answers.h"
#include "report/sections/answers_section.h"
#include "report/report.h"
#include "report_fixture.h"
#include "stats.h"
#include "store/question_json.h"

using namespace mt;
using namespace mt::testing;

namespace {

std::string data(const std::string& name) { return std::string(MT_TEST_DATA_DIR) + "/" + name + ".yaml"; }

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

const char* kStrategies = R"(name: q
studies:
  - name: s
    workload: train
    matrix:
      strategy: [ddp, fsdp]
      ranks: [1, 2]
      gradient_sync_mode: [every, last]
)";

// Problems of an experiment file made of kStrategies and `questions`.
std::string problems_with(const std::string& questions) {
  auto file = write_file("questions_check.yaml", std::string(kStrategies) + questions);
  std::string out;
  for (const auto& d : check_experiment(file).errors) {
    out += std::to_string(d.pos.line) + ":" + std::to_string(d.pos.column) + ": " + d.message + "\n";
  }
  return out;
}

// A succeeded training trial as a report reads it.
ReportTrial trial(const std::string& strategy, int ranks, const std::string& sync, int repeat, double tokens,
                  const std::string& study = "s") {
  ReportTrial t;
  t.campaign_id = "c";
  t.study = study;
  t.workload = "train";
  t.strategy = strategy;
  t.ranks = ranks;
  t.repeat_index = repeat;
  t.parameters = {{"strategy", strategy}, {"ranks", std::to_string(ranks)}, {"grad_accum_steps", "2"}};
  t.axes = {"strategy", "ranks"};
  if (!sync.empty()) {
    t.parameters["gradient_sync_mode"] = sync;
    t.axes.push_back("gradient_sync_mode");
  }
  t.identity = study + strategy + std::to_string(ranks) + sync + std::to_string(repeat);
  t.group_key = study + strategy + std::to_string(ranks) + sync;
  t.succeeded_attempt = 1;
  t.metrics["tokens_per_sec"] = tokens;
  t.result = {{"resolved_gradient_sync_mode", sync.empty() ? "last" : sync}};
  return t;
}

// ddp, fsdp and zero1 at 1, 2, 4 and 8 ranks, three repeats each: every strategy as fast as the
// others, each rank count about as much faster as it has ranks.
std::vector<ReportTrial> three_strategies_at_four_rank_counts() {
  std::vector<ReportTrial> trials;
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2, 4, 8}) {
      for (const char* s : {"ddp", "fsdp", "zero1"}) trials.push_back(trial(s, ranks, "", r, 100.0 * ranks + r));
    }
  }
  return trials;
}

}  // namespace

TEST_CASE("questions: a valid list is kept, each with its study's scope and the metric's direction") {
  auto file = write_file("questions_ok.yaml", std::string(kStrategies) + R"(    questions:
      - {metric: step_time_ms, compare: ranks, baseline: 1, within: [strategy]}
questions:
  - metric: tokens_per_sec
    compare: strategy
    baseline: ddp
    within: [ranks, gradient_sync_mode]
    where: ranks > 1
)");
  CheckedExperiment checked = check_experiment(file);
  REQUIRE(checked.errors.empty());
  const auto& q = checked.experiment->questions;
  REQUIRE(q.size() == 2);
  CHECK(q[0].compare == "strategy");
  CHECK(q[0].within == std::vector<std::string>{"ranks", "gradient_sync_mode"});
  CHECK(q[0].better == "higher");
  CHECK(q[0].study.empty());
  CHECK(q[0].where == "ranks > 1");
  CHECK(q[1].study == "s");
  CHECK(q[1].better == "lower");
  // Kept with the campaign and read back as they were.
  auto back = questions_from_measurement("{\"questions\":" + questions_to_json(q) + "}");
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[1].within == std::vector<std::string>{"strategy"});
  CHECK((*back)[1].study == "s");
  CHECK((*back)[0].where == "ranks > 1");
  CHECK((*back)[1].where.empty());
  CHECK_FALSE(questions_from_measurement("{\"conditions\":{}}"));
  // The same questions without reading the studies as a run would (no engine needed).
  QuestionFile alone = read_question_file(file);
  CHECK(alone.errors.empty());
  CHECK(alone.questions.size() == 2);
}

TEST_CASE("questions: each mistake is named at its place, with what would be right") {
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: stratgy, baseline: ddp}\n") ==
        "10:39: question #1 compare 'stratgy' is not an axis of study 's' (did you mean 'strategy'?)\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: zero3}\n") ==
        "10:59: question #1 baseline 'zero3' is not a value of 'strategy' (its values: ddp, fsdp)\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, within: [rnks]}\n") ==
        "10:73: question #1 within 'rnks' is not an axis of study 's' (did you mean 'ranks'?)\n");
  CHECK(problems_with("questions:\n  - {metric: grad_norm, compare: strategy, baseline: ddp}\n") ==
        "10:14: question #1: which way is better for metric 'grad_norm' is not known: add better: higher or "
        "better: lower\n");
  // A mistyped metric is named with the one meant, before better: is asked for.
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sek, compare: strategy, baseline: ddp}\n") ==
        "10:14: question #1: which way is better for metric 'tokens_per_sek' is not known (did you mean "
        "'tokens_per_sec'?): add better: higher or better: lower\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, better: lower}\n") ==
        "10:72: question #1 says better: lower, but higher is better for metric 'tokens_per_sec'; drop better\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, within: "
                      "[strategy]}\n") == "10:73: question #1 within lists 'strategy', the axis it compares\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, baseline: ddp}\n") ==
        "10:5: question #1 needs 'compare' (metric, compare, baseline; within, where and better are optional)\n");
  CHECK(problems_with(
            "questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, where: 'rnks > 1'}\n") ==
        "10:71: question #1 where 'rnks' is not an axis of study 's' (did you mean 'ranks'?)\n");
  CHECK(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, where: 'ranks >'}\n")
            .rfind("10:", 0) == 0);
  CHECK(contains(problems_with("questions:\n  - {metric: tokens_per_sec, compare: strategy, baseline: ddp, where: "
                               "'ranks >'}\n"),
                 "question #1 where: "));
  CHECK(problems_with("questions:\n  - {metric: grad_norm, compare: study, baseline: s, better: lower}\n") ==
        "10:34: question #1 compares studies, but it is asked of study 's' alone\n");
  // A direction the question declares makes any stored metric answerable.
  CHECK(problems_with("questions:\n  - {metric: grad_norm, compare: strategy, baseline: ddp, better: lower}\n") == "");
}

TEST_CASE("questions: a study that sets no strategy runs the engine's default, a baseline to compare with") {
  const std::string two_studies = R"(name: q
studies:
  - name: plain
    workload: train
    matrix:
      ranks: [2]
  - name: sharded
    workload: train
    matrix:
      strategy: [fsdp]
      ranks: [2]
questions:
  - {metric: tokens_per_sec, compare: strategy, baseline: BASE}
)";
  auto problems = [&](const std::string& baseline) {
    std::string text = two_studies;
    text.replace(text.find("BASE"), 4, baseline);
    std::string out;
    for (const auto& d : check_experiment(write_file("questions_default.yaml", text)).errors) out += d.message + "\n";
    return out;
  };
  CHECK(problems("ddp") == "");
  // An engine whose default strategy is another: that one is what the plain study runs.
  WorkloadSpec other = *find_workload("train");
  struct Restore {
    ~Restore() { register_engine_fixture(); }
  } restore;
  for (auto& p : other.params) {
    if (p.name == kStrategyParam) p.default_value = "zero1";
  }
  register_engine_workload(other);
  CHECK(problems("zero1") == "");
  CHECK(problems("ddp") == "question #1 baseline 'ddp' is not a value of 'strategy' (its values: fsdp, zero1)\n");
}

TEST_CASE("ratio CI: Fieller's interval holds the ratio, widens with noise and is unbounded near a zero baseline") {
  const std::vector<double> a = {62, 60, 64, 61, 63}, b = {100, 98, 102, 99, 101};
  auto ci = ratio_confidence_interval(a, b);
  REQUIRE(ci);
  const double ratio = 62.0 / 100.0;
  CHECK(ci->low < ratio);
  CHECK(ci->high > ratio);
  // Against the exact Fieller bounds for these values (t with Welch-Satterthwaite df at the ratio).
  CHECK(ci->low == doctest::Approx(0.6003).epsilon(0.001));
  CHECK(ci->high == doctest::Approx(0.6400).epsilon(0.001));
  auto wide = ratio_confidence_interval({50, 74, 62, 55, 69}, b);
  REQUIRE(wide);
  CHECK(wide->high - wide->low > ci->high - ci->low);
  CHECK_FALSE(ratio_confidence_interval(a, {-1, 1, 0.5, -0.5}));  // the baseline's mean may be zero
  CHECK_FALSE(ratio_confidence_interval({1}, b));
  auto exact = ratio_confidence_interval({2, 2}, {4, 4});
  REQUIRE(exact);
  CHECK(exact->low == 0.5);
  CHECK(exact->high == 0.5);
}

TEST_CASE("verdicts: faster, slower, better, worse, within noise, not enough data") {
  CHECK(answer_verdict("tokens_per_sec", "higher", 0.62, 0.003, true) == "slower");
  CHECK(answer_verdict("tokens_per_sec", "higher", 1.3, 0.01, true) == "faster");
  CHECK(answer_verdict("step_time_ms", "lower", 1.3, 0.01, true) == "slower");
  CHECK(answer_verdict("peak_memory_mb", "lower", 0.5, 0.01, true) == "better");
  CHECK(answer_verdict("loss", "lower", 1.1, 0.01, true) == "worse");
  CHECK(answer_verdict("tokens_per_sec", "higher", 0.62, 0.05, true) == "within noise");
  CHECK(answer_verdict("tokens_per_sec", "higher", 0.62, std::nullopt, false) == "not enough data");
}

TEST_CASE("answers: one line per configuration, Holm over a question's lines, same configurations left out") {
  std::vector<ReportTrial> trials;
  const double ddp[] = {100, 101, 99}, fsdp[] = {62, 63, 61};
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      for (const char* sync : {"every", "last"}) {
        trials.push_back(trial("ddp", ranks, sync, r, ddp[r] * ranks));
        trials.push_back(trial("fsdp", ranks, sync, r, fsdp[r] * ranks));
      }
    }
  }
  std::vector<Group> groups = group_trials(trials);
  SUBCASE("strategy against ddp") {
    QuestionAnswers qa =
        answer_question({"tokens_per_sec", "strategy", "ddp", {"ranks", "gradient_sync_mode"}, "higher", "", {}, ""},
                        group_pointers(groups));
    REQUIRE(qa.answers.size() == 4);
    CHECK(qa.tested == 4);
    CHECK(qa.answers[0].label == "fsdp vs ddp, ranks = 1, gradient_sync_mode = every");
    CHECK(qa.answers[0].verdict == "slower");
    CHECK(answer_line(qa.answers[0], qa.tested)
              .rfind("fsdp vs ddp, ranks = 1, gradient_sync_mode = every: 0.62× tokens/s (95 % CI ", 0) == 0);
    CHECK(contains(answer_line(qa.answers[0], qa.tested), "n = 3 + 3, p (Holm) < 0.001): **slower**"));
  }
  SUBCASE("no sync-mode comparison at 1 rank, where both modes run the same thing") {
    QuestionAnswers qa =
        answer_question({"tokens_per_sec", "gradient_sync_mode", "every", {"strategy", "ranks"}, "higher", "", {}, ""},
                        group_pointers(groups));
    REQUIRE(qa.answers.size() == 2);
    CHECK(qa.answers[0].label == "gradient_sync_mode = last vs every, strategy = ddp, ranks = 2");
    CHECK(qa.answers[1].label == "gradient_sync_mode = last vs every, strategy = fsdp, ranks = 2");
    REQUIRE(qa.skipped.size() == 2);
    CHECK(qa.skipped[0] ==
          "gradient_sync_mode = last vs every, strategy = ddp, ranks = 1: the same resolved configuration");
  }
  SUBCASE("where: only the configurations it selects are answered, and Holm counts only those") {
    Question q{"tokens_per_sec", "strategy", "ddp", {"ranks", "gradient_sync_mode"}, "higher", "", {}, ""};
    q.where = "ranks > 1 and gradient_sync_mode == 'every'";
    QuestionAnswers qa = answer_question(q, group_pointers(groups));
    REQUIRE(qa.answers.size() == 1);
    CHECK(qa.tested == 1);
    CHECK(qa.answers[0].label == "fsdp vs ddp, ranks = 2, gradient_sync_mode = every");
    // A configuration without an axis the expression names is left out: here, all of them.
    q.where = "bytes >= 1048576";
    CHECK(answer_question(q, group_pointers(groups)).answers.empty());
  }
  SUBCASE("a baseline that ran nowhere in the campaign is one reason, not one per configuration") {
    QuestionAnswers qa = answer_question({"tokens_per_sec", "strategy", "zero1", {"ranks"}, "higher", "", {}, ""},
                                         group_pointers(groups));
    CHECK(qa.answers.empty());
    REQUIRE(qa.skipped.size() == 1);
    CHECK(qa.skipped[0] == "every comparison: no configuration here has strategy = zero1");
  }
  SUBCASE("a baseline side that holds several configurations is not pooled") {
    QuestionAnswers qa =
        answer_question({"tokens_per_sec", "strategy", "ddp", {"ranks"}, "higher", "", {}, ""}, group_pointers(groups));
    // gradient_sync_mode is not named: each fsdp group is held against the ddp group of its own mode.
    REQUIRE(qa.answers.size() == 4);
    CHECK(qa.answers[0].label == "fsdp vs ddp, ranks = 1, gradient_sync_mode = every");
    CHECK(qa.answers[0].verdict == "slower");
  }
}

TEST_CASE("answers: a side with one value is not enough data; a rank baseline from another study serves all") {
  std::vector<ReportTrial> trials = {trial("ddp", 1, "", 0, 100, "single"), trial("ddp", 1, "", 1, 102, "single"),
                                     trial("ddp", 2, "every", 0, 150, "scaling"),
                                     trial("ddp", 2, "every", 1, 152, "scaling"),
                                     trial("ddp", 2, "last", 0, 190, "scaling")};
  std::vector<Group> groups = group_trials(trials);
  QuestionAnswers qa = answer_question({"tokens_per_sec", "ranks", "1", {"gradient_sync_mode"}, "higher", "", {}, ""},
                                       group_pointers(groups));
  REQUIRE(qa.answers.size() == 2);
  CHECK(qa.answers[0].label == "ranks = 2 vs 1, gradient_sync_mode = every");
  CHECK(qa.answers[0].verdict == "faster");
  CHECK(qa.answers[1].verdict == "not enough data");
  CHECK(answer_line(qa.answers[1], qa.tested) ==
        "ranks = 2 vs 1, gradient_sync_mode = last: 1.88× tokens/s (n = 1 + 2): **not enough data**");
  // As text, the answers end by saying that so few repeats make them rough, and what to do.
  AnswerInputs in;
  in.groups = group_pointers(groups);
  in.questions = {{"tokens_per_sec", "ranks", "1", {"gradient_sync_mode"}, "higher", "", {}, ""}};
  const std::string text = answers_as_text(in);
  CHECK(contains(text,
                 "  - ranks = 2 vs 1, gradient_sync_mode = last: 1.88× tokens/s (n = 1 + 2): not enough data\n"
                 "fewer than 3 repeats on a side: its interval and p are rough (`repeat: {min: 3, max: 20, "
                 "target_ci_pct: 2}` repeats each configuration until its mean's 95 % CI is within ± 2 %)\n"));
}

TEST_CASE("answers: a side whose step time still moved over its window is named under the answers") {
  // 2 ranks against 1, three repeats each; at 2 ranks the first quarter of the 12 measured steps
  // ran 25 % slower than the rest every time (warm-up not over), at 1 rank the steps were level.
  std::vector<ReportTrial> trials;
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      ReportTrial t = trial("ddp", ranks, "", r, 100.0 * ranks + r, "s");
      t.metrics["steps"] = 12;
      nlohmann::json steps = nlohmann::json::array();
      for (int i = 0; i < 12; ++i) steps.push_back(ranks == 2 && i < 3 ? 50.0 + r : 40.0);
      t.result["per_step"] = {{"step_time_ms", nlohmann::json::array({steps})}};
      trials.push_back(t);
    }
  }
  std::vector<Group> groups = group_trials(trials);
  AnswerInputs in;
  in.groups = group_pointers(groups);
  in.source = "declared in the test";
  in.questions = {{"tokens_per_sec", "ranks", "1", {}, "higher", "", {}, ""}};
  const std::string note =
      "⚠warming: s ddp ×2 still got faster over its measured steps (the last half 21.5 % faster than the first quarter "
      "on average, 3 of 3 repeats that way, p = 0.002): its mean holds some warm-up, and so does every answer it is "
      "a side of";
  CHECK(contains(answers_as_text(in), note + " (`mtrun report`, Measurement conditions)\n"));
  CHECK(contains(render_answers(in).section, note + " (see [Measurement conditions](#measurement-conditions)).\n"));
  CHECK_FALSE(contains(answers_as_text(in), "s ddp ×1"));  // level: no note
  // A group that is no side of any answer is not named under them.
  in.questions[0].where = "ranks > 2";
  CHECK_FALSE(contains(answers_as_text(in), "⚠warming"));
}

TEST_CASE("default questions: each strategy against ddp and each rank count against the smallest, within the rest") {
  std::vector<ReportTrial> trials;
  for (int ranks : {1, 2, 4}) {
    for (const char* s : {"ddp", "fsdp", "zero1"}) trials.push_back(trial(s, ranks, "every", 0, 100));
  }
  std::vector<Group> groups = group_trials(trials);
  std::vector<Question> q = default_questions(group_pointers(groups), "ddp");
  REQUIRE(q.size() == 2);
  CHECK(q[0].compare == "strategy");
  CHECK(q[0].baseline == "ddp");
  CHECK(q[0].within == std::vector<std::string>{"ranks", "gradient_sync_mode"});
  CHECK(q[1].compare == "ranks");
  CHECK(q[1].baseline == "1");
  CHECK(q[1].within == std::vector<std::string>{"strategy", "gradient_sync_mode"});
  CHECK(q[0].metric == "tokens_per_sec");
  // Without ddp among the strategies there is no strategy question; one rank count, no rank question.
  std::vector<ReportTrial> no_ddp = {trial("fsdp", 2, "", 0, 1), trial("zero1", 2, "", 0, 1)};
  std::vector<Group> g2 = group_trials(no_ddp);
  CHECK(default_questions(group_pointers(g2), "ddp").empty());
  // The baseline is the engine's reference strategy, whichever it is.
  std::vector<Question> by_fsdp = default_questions(group_pointers(g2), "fsdp");
  REQUIRE(by_fsdp.size() == 1);
  CHECK(by_fsdp[0].compare == "strategy");
  CHECK(by_fsdp[0].baseline == "fsdp");
  // A sync-mode-only experiment asks nothing by default: its modes are compared only when asked.
  std::vector<ReportTrial> modes = {trial("ddp", 1, "every", 0, 1), trial("ddp", 1, "last", 0, 1)};
  std::vector<Group> g3 = group_trials(modes);
  CHECK(default_questions(group_pointers(g3), "ddp").empty());
}

TEST_CASE("report: an experiment's questions are answered first, before the summary") {
  ReportFixture f("answers.sqlite");
  engine_and_peer_campaign(f);
  f.store().record_questions("c1",
                             questions_to_json({{"tokens_per_sec", "study", "peer", {"ranks"}, "higher", "", {}, ""}}));
  const std::string md = render_latest(f).markdown;
  const auto answers = md.find("## Answers"), summary = md.find("## Summary");
  REQUIRE(answers != std::string::npos);
  CHECK(answers < summary);
  CHECK(md.find("## ") == answers);
  CHECK(contains(md, "Questions declared in the experiment file when campaign `c1` ran."));
  CHECK(contains(md,
                 "**tokens/s: study vs peer, within ranks** — higher is better\n\n"
                 "- engine vs peer, ranks = 1: 1.20× tokens/s (95 % CI "));
  CHECK(contains(md, "n = 3 + 3, p (Holm) < 0.001): **faster**\n"));
  // Without stored questions: the defaults, said to be such.
  ReportFixture plain("answers_defaults.sqlite");
  engine_and_peer_campaign(plain);
  const std::string md2 = render_latest(plain).markdown;
  CHECK(contains(md2, "## Answers\n\nThe experiment declares no questions"));
  CHECK(
      contains(md2, "**tokens/s: ranks vs 1** — higher is better\n\n- ranks = 2 vs 1, study = engine: 2.00× tokens/s"));
}

TEST_CASE("report: a question's where is kept with the campaign and said in its title") {
  ReportFixture f("answers_where.sqlite");
  engine_and_peer_campaign(f);
  Question q{"tokens_per_sec", "study", "peer", {"ranks"}, "higher", "", {}, ""};
  q.where = "ranks >= 1";
  f.store().record_questions("c1", questions_to_json({q}));
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md,
                 "**tokens/s: study vs peer, within ranks, where ranks >= 1** — higher is better\n\n"
                 "- engine vs peer, ranks = 1: 1.20× tokens/s"));
}

TEST_CASE("report --questions: the file's questions, validated, in place of the campaign's") {
  ReportFixture f("answers_file.sqlite");
  engine_and_peer_campaign(f);
  ReportOptions options;
  QuestionFile file = read_question_file(data("questions_peer"));
  REQUIRE(file.errors.empty());
  options.questions = file.questions;
  options.questions_source = "declared in `questions_peer.yaml` (given with `report --questions`)";
  auto db = open_results(f.path());
  const std::string md = render_report(load_report_data(*db, {latest_campaign(*db)}), options).markdown;
  CHECK(contains(md, "Questions declared in `questions_peer.yaml` (given with `report --questions`)."));
  CHECK(contains(md, "- engine vs peer, ranks = 2: 1.20× tokens/s"));
}

TEST_CASE("answers: a question with many answers is summed up first and listed in full under All answers") {
  const std::vector<ReportTrial> trials = three_strategies_at_four_rank_counts();
  std::vector<Group> groups = group_trials(trials);
  AnswerInputs in;
  in.questions = {{"tokens_per_sec", "ranks", "1", {"strategy"}, "higher", "", {}, ""}};
  in.source = "declared in the test";
  in.groups = group_pointers(groups);
  RenderedAnswers r = render_answers(in);
  CHECK(contains(r.section, "A question with more than 8 answers is summed up"));
  CHECK(contains(r.section,
                 "9 comparisons, each listed under [All answers](#all-answers):\n\n"
                 "- ranks = 2 vs 1: 3 faster; ratio 1.99× to 1.99×, median 1.99×\n"));
  CHECK(contains(r.section, "- ranks = 8 vs 1: 3 faster; ratio 7.93× to 7.93×"));
  CHECK(contains(r.section, "- highest ratio beyond noise: ranks = 8 vs 1, strategy = ddp: 7.93× tokens/s"));
  CHECK(contains(r.section, "- lowest ratio beyond noise: ranks = 2 vs 1, strategy = ddp: 1.99× tokens/s"));
  CHECK_FALSE(contains(r.section, "ranks = 4 vs 1, strategy = fsdp"));
  CHECK(r.all.rfind("## All answers\n", 0) == 0);
  CHECK(contains(r.all, "<details><summary>9 answers</summary>\n\n- ranks = 2 vs 1, strategy = ddp: "));
  CHECK(contains(r.all, "- ranks = 4 vs 1, strategy = fsdp: "));
  CHECK(contains(r.all, "</details>\n"));
  // Few answers: listed in the section itself, nothing further down.
  in.questions = {{"tokens_per_sec", "strategy", "ddp", {"ranks"}, "higher", "", {}, ""}};
  RenderedAnswers few = render_answers(in);
  CHECK(few.all.empty());
  CHECK_FALSE(contains(few.section, "summed up"));
  CHECK(contains(few.section, "- zero1 vs ddp, ranks = 8: 1.000× tokens/s"));
}

TEST_CASE("answers as text: each question's title and its answers below it, without markdown") {
  const std::vector<ReportTrial> trials = three_strategies_at_four_rank_counts();
  std::vector<Group> groups = group_trials(trials);
  AnswerInputs in;
  in.groups = group_pointers(groups);
  in.reference_strategy = "ddp";
  in.questions = {{"tokens_per_sec", "strategy", "ddp", {"ranks"}, "higher", "", {}, ""}};
  const std::string few = answers_as_text(in);
  CHECK(few.rfind("answers to the experiment's questions (compared ÷ baseline: ratio of means, its 95 % CI, "
                  "Welch p; within noise at p ≥ 0.05; disturbed attempts left out):\n"
                  "tokens/s: strategy vs ddp, within ranks — higher is better\n"
                  "  - fsdp vs ddp, ranks = 1: 1.000× tokens/s (95 % CI ",
                  0) == 0);
  CHECK(contains(few, "  - zero1 vs ddp, ranks = 8: 1.000× tokens/s (95 % CI "));
  CHECK(contains(few, "p (Holm) = 1.000): within noise\n"));
  CHECK_FALSE(contains(few, "**"));
  CHECK_FALSE(contains(few, "`"));
  CHECK_FALSE(contains(few, "fewer than 3 repeats"));  // three a side
  // The same answers as the report gives, line for line.
  const std::string section = render_answers(in).section;
  std::size_t lines = 0;
  for (std::size_t at = section.find("\n- "); at != std::string::npos; at = section.find("\n- ", at + 1)) ++lines;
  CHECK(std::count(few.begin(), few.end(), '\n') == 2 + lines);

  SUBCASE("many answers are summed up, as in the report, which lists each") {
    in.questions = {{"tokens_per_sec", "ranks", "1", {"strategy"}, "higher", "", {}, ""}};
    const std::string many = answers_as_text(in);
    CHECK(contains(many,
                   "tokens/s: ranks vs 1, within strategy — higher is better\n"
                   "  9 comparisons, each listed in the report (`mtrun report`):\n"
                   "  - ranks = 2 vs 1: 3 faster; ratio 1.99× to 1.99×, median 1.99×\n"));
    CHECK(contains(many, "  - highest ratio beyond noise: ranks = 8 vs 1, strategy = ddp: 7.93× tokens/s"));
    CHECK(contains(many, "n = 3 + 3, p (Holm) < 0.001): faster\n"));
  }
  SUBCASE("none declared: the default questions, said to be such; disturbed attempts as the report treats them") {
    in.questions.clear();
    in.keep_disturbed = true;
    const std::string defaults = answers_as_text(in);
    CHECK(defaults.rfind("answers to the default questions (the experiment declares none) (", 0) == 0);
    CHECK(contains(defaults, "; disturbed attempts kept in):\n"));
    CHECK(contains(defaults, "tokens/s: strategy vs ddp, within ranks — higher is better\n"));
    CHECK(contains(defaults, "tokens/s: ranks vs 1, within strategy — higher is better\n"));
    CHECK(contains(render_answers(in).section, "Disturbed attempts are kept in, as everywhere in this report"));
  }
  SUBCASE("a question no trial can answer says so") {
    in.questions = {{"busbw_gbps", "operation", "all_reduce", {}, "higher", "", {}, ""}};
    CHECK(contains(answers_as_text(in),
                   "busbw GB/s: operation vs all_reduce — higher is better\n"
                   "  - no trial recorded busbw_gbps with a value of operation\n"));
    // Where configurations were left out for their disturbed attempts, that is what it lacks.
    in.disturbed_only = 2;
    CHECK(contains(answers_as_text(in),
                   "  - no trial on a quiet machine recorded busbw_gbps with a value of operation: 2 configurations "
                   "ran only on a disturbed machine and are left out (mtrun report --keep-disturbed keeps them)\n"));
    CHECK(contains(render_answers(in).section,
                   "- No trial on a quiet machine recorded `busbw_gbps` with a value of `operation`: 2 configurations "
                   "ran only on a disturbed machine and are left out (`mtrun report --keep-disturbed` keeps them).\n"));
  }
  SUBCASE("a metric no trial records at all is named so, with the one meant, whatever was disturbed") {
    in.planned = &trials;
    in.disturbed_only = 2;
    in.questions = {{"tokens_per_sek", "strategy", "ddp", {}, "higher", "", {}, ""}};
    CHECK(contains(answers_as_text(in),
                   "  - no trial recorded a metric named tokens_per_sek (did you mean 'tokens_per_sec'?)\n"));
    // A metric they record, with nothing quiet to answer from, is still said as before.
    in.questions = {{"tokens_per_sec", "seed", "1", {}, "higher", "", {}, ""}};
    CHECK(
        contains(answers_as_text(in), "  - no trial on a quiet machine recorded tokens_per_sec with a value of seed"));
  }
  SUBCASE("nothing to ask: no text at all") {
    std::vector<ReportTrial> one = {trial("ddp", 1, "", 0, 100), trial("ddp", 1, "", 1, 101)};
    std::vector<Group> single = group_trials(one);
    in.questions.clear();
    in.groups = group_pointers(single);
    CHECK(answers_as_text(in).empty());
  }
}

TEST_CASE("answers as text from a database: the campaign's questions; none where its results mix builds") {
  ReportFixture f("answers_text.sqlite");
  engine_and_peer_campaign(f);
  f.store().record_questions("c1",
                             questions_to_json({{"tokens_per_sec", "study", "peer", {"ranks"}, "higher", "", {}, ""}}));
  auto db = open_results(f.path());
  const std::string text = render_answers_text(load_report_data(*db, {latest_campaign(*db)}));
  CHECK(contains(text,
                 "tokens/s: study vs peer, within ranks — higher is better\n"
                 "  - engine vs peer, ranks = 1: 1.20× tokens/s (95 % CI "));

  // A campaign whose step times all grew as it ran ends with a line saying what that does to the summary.
  ReportFixture drifting("answers_text_drift.sqlite");
  drifting.campaign("c1");
  rounds_with_growth(drifting, "c1", 0.05);
  drifting.pin_timestamps();  // the attempts start in the order they were added
  auto drift_db = open_results(drifting.path());
  const std::string drift_text = render_answers_text(load_report_data(*drift_db, {latest_campaign(*drift_db)}));
  // Each configuration 5 % slower a round against its mean of 1.075, a round every 2 of 7 places: 16.3 %.
  CHECK(contains(drift_text,
                 "⚠campaign drift: step times moved +16.3 % from the first attempt to the last (8 attempts "
                 "of 2 configurations, each against its own mean, in the order they started; p < 0.001): "
                 "the summary's figures depend on when they ran; ratios between interleaved "
                 "configurations hold (`mtrun report`, Measurement conditions)\n"));
  CHECK_FALSE(contains(text, "⚠campaign drift"));  // the level campaign above

  ReportFixture mixed("answers_text_mixed.sqlite");
  mixed.campaign("c1");
  FixtureProvenance a, b;
  a.image_id = b.image_id = "";
  a.engine_binary_hash = "fnv1a64:aaaaaaaaaaaaaaaa";
  b.engine_binary_hash = "fnv1a64:dddddddddddddddd";
  for (int r = 0; r < 2; ++r) {
    mixed.provenance(mixed.trial(train_trial("s", "ddp", 1, r, 1000, 40, 500)), r == 0 ? a : b);
    mixed.provenance(mixed.trial(train_trial("s", "ddp", 2, r, 1800, 44, 500)), r == 0 ? a : b);
  }
  auto mixed_db = open_results(mixed.path());
  CHECK(render_answers_text(load_report_data(*mixed_db, {latest_campaign(*mixed_db)})) ==
        "answers: none here: the results come from 2 builds of mtengine (fnv1a64:aaaaaaaaaaaaaaaa in 2 trials, "
        "fnv1a64:dddddddddddddddd in 2 trials); `mtrun report --allow-mixed` answers them, saying which rows come "
        "from where\n");
}

TEST_CASE("answers: ratios below 0.1 keep two significant digits") {
  Answer a;
  a.label = "gloo vs bare_mpi";
  a.metric = "busbw_gbps";
  a.ratio = 0.00037;
  a.a.n = 1;
  a.b.n = 1;
  a.verdict = "not enough data";
  CHECK(answer_line(a, 1) == "gloo vs bare_mpi: 0.00037× busbw GB/s (n = 1 + 1): **not enough data**");
}

TEST_CASE("a ratio interval of never-negative figures that Fieller takes below zero is shown from 0") {
  Answer a;
  a.label = "gloo vs mpi, bytes = 1024";
  a.metric = "busbw_gbps";
  a.a = summarize({0.001, 0.0002, 0.002});  // the compared side: hardly above its spread
  a.b = summarize({1.0, 1.1, 0.9});
  a.ratio = a.a.mean / a.b.mean;
  a.ratio_ci = ratio_confidence_interval({0.001, 0.0002, 0.002}, {1.0, 1.1, 0.9});
  REQUIRE(a.ratio_ci);
  REQUIRE(a.ratio_ci->low < 0);
  a.verdict = "within noise";
  CHECK(ci_starts_at_zero(a));
  const std::string line = answer_line(a, 1);
  CHECK(line.find("(95 % CI 0.0000–") != std::string::npos);
  CHECK(line.find("CI -") == std::string::npos);
  // A metric that can be negative keeps Fieller's lower end as it is.
  a.a = summarize({-0.001, 0.0002, 0.002});
  CHECK_FALSE(ci_starts_at_zero(a));
  CHECK(answer_line(a, 1).find("CI -") != std::string::npos);
}

TEST_CASE("answers: a comparison without its baseline says what became of it, or that none ran there") {
  // fsdp at 1, 2 and 4 ranks against ddp: ddp at 1 rank succeeded; at 2 ranks one trial failed and
  // the other ran on a disturbed machine; at 4 ranks the experiment ran none (its `where`, say).
  std::vector<ReportTrial> trials;
  for (int r = 0; r < 2; ++r) {
    for (int ranks : {1, 2, 4}) trials.push_back(trial("fsdp", ranks, "", r, 90.0 * ranks + r));
    trials.push_back(trial("ddp", 1, "", r, 100.0 + r));
    ReportTrial unlucky = trial("ddp", 2, "", r, 150);
    if (r == 0) {
      unlucky.succeeded_attempt.reset();
      unlucky.latest_state = "failed";
      unlucky.metrics.clear();
    } else {
      unlucky.verdict = "disturbed";
    }
    trials.push_back(unlucky);
  }
  std::vector<Group> groups = group_trials(trials);
  Question q{"tokens_per_sec", "strategy", "ddp", {"ranks"}, "higher", "", {}, ""};
  QuestionAnswers qa = answer_question(q, group_pointers(groups), &trials);
  REQUIRE(qa.answers.size() == 1);
  CHECK(qa.answers[0].label == "fsdp vs ddp, ranks = 1");
  REQUIRE(qa.skipped.size() == 2);
  CHECK(qa.skipped[0] ==
        "fsdp vs ddp, ranks = 2: nothing to compare with: of the 2 trials with strategy = ddp there, 1 did not "
        "succeed, 1 ran on a disturbed machine");
  CHECK(qa.skipped[1] ==
        "fsdp vs ddp, ranks = 4: no configuration with strategy = ddp ran there (the experiment's `where` or "
        "`exclude`)");
  // The question's own `where` leaves out the 2-rank baseline: none of it is looked at.
  q.where = "strategy == 'fsdp' or ranks == 1";
  qa = answer_question(q, group_pointers(groups), &trials);
  REQUIRE(qa.skipped.size() == 2);
  CHECK(qa.skipped[0] ==
        "fsdp vs ddp, ranks = 2: no configuration with strategy = ddp ran there (the experiment's `where` or "
        "`exclude`, or the question's `where`)");
  // Without the planned trials, the reason stays general.
  q.where.clear();
  CHECK(answer_question(q, group_pointers(groups)).skipped[1] ==
        "fsdp vs ddp, ranks = 4: no ddp configuration to compare with");
}
