// Axes that set environment variables (`env.NAME`): a trial records their values among its
// parameters, under the axis name, so that status, reports, questions, compare and history tell
// its configurations apart — also in databases written before, where they are only in the spec.
#include <doctest/doctest.h>

#include "report/compare/compare.h"
#include "report/compare/history.h"
#include "report/model/results_source.h"
#include "report_fixture.h"
#include "run/summary.h"
#include "store/campaign_lookup.h"
#include "store/question_json.h"
#include "store/trial_json.h"

using namespace mt;
using namespace mt::testing;

namespace {

// DDP at one rank in `campaign`, two repeats each of OMP_NUM_THREADS 1 and 2 (1.5× the tokens/s).
void thread_campaign(ReportFixture& f, const std::string& campaign) {
  f.campaign(campaign);
  for (int r = 0; r < 2; ++r) {
    for (const char* threads : {"1", "2"}) {
      FixtureTrial t = train_trial("s", "ddp", 1, r, (threads[0] == '1' ? 1000 : 1500) + 10 * r, 40, 500);
      t.axes = {"ranks", "env.OMP_NUM_THREADS"};
      t.environment = {{"OMP_NUM_THREADS", threads}};
      f.trial(t, campaign);
    }
  }
}

// The database as an mtrun that recorded env values only in the trial's spec left it.
void forget_recorded_env(ReportFixture& f) {
  f.store().db().prepare("UPDATE trials SET parameters = json_remove(parameters, '$.\"env.OMP_NUM_THREADS\"')").run();
}

std::vector<std::string> status_labels(ReportFixture& f) {
  std::vector<std::string> labels;
  for (const auto& row : campaign_trials(f.store().db(), "c1")) labels.push_back(row.config);
  return labels;
}

const std::vector<std::string> kLabels = {"ranks=1 env.OMP_NUM_THREADS=1", "ranks=1 env.OMP_NUM_THREADS=2",
                                          "ranks=1 env.OMP_NUM_THREADS=1", "ranks=1 env.OMP_NUM_THREADS=2"};

}  // namespace

TEST_CASE("env axes: recorded among the parameters as env.NAME; the spec's parameters, the engine's flags, keep none") {
  Trial t;
  t.params = {{"ranks", "1"}, {"strategy", "ddp"}};
  t.environment = {{"OMP_NUM_THREADS", "2"}};
  CHECK(recorded_parameters(t).dump() == R"({"ranks":"1","strategy":"ddp","env.OMP_NUM_THREADS":"2"})");
  const Trial stored = trial_from_json(trial_to_json(t));
  CHECK(stored.params.size() == 2);
  CHECK(stored.param("env.OMP_NUM_THREADS").empty());

  const std::string spec = trial_to_json(t);
  // Stored before env values were recorded: taken from the spec.
  CHECK(stored_parameters(R"({"ranks":"1"})", spec).dump() == R"({"ranks":"1","env.OMP_NUM_THREADS":"2"})");
  // Recorded already: the recorded value stands, not repeated.
  CHECK(stored_parameters(R"({"env.OMP_NUM_THREADS":"4"})", spec).dump() == R"({"env.OMP_NUM_THREADS":"4"})");
  // Damaged text adds nothing and takes nothing away.
  CHECK(stored_parameters(R"({"ranks":"1"})", "not json").dump() == R"({"ranks":"1"})");
  CHECK(stored_parameters("[", spec).dump() == R"({"env.OMP_NUM_THREADS":"2"})");
  CHECK(stored_parameters(R"({"ranks":"1"})", R"({"environment":{"A":3}})").dump() == R"({"ranks":"1"})");
}

TEST_CASE("env axes: status labels each trial with its env value, also from an older database") {
  ReportFixture f("env_axes_status.sqlite");
  thread_campaign(f, "c1");
  auto recorded = f.store().db().prepare("SELECT count(*) FROM trials WHERE json_extract(parameters, ?) = '2'");
  recorded.bind(1, "$.\"env.OMP_NUM_THREADS\"");
  REQUIRE(recorded.step());
  CHECK(recorded.integer(0) == 2);
  CHECK(status_labels(f) == kLabels);
  forget_recorded_env(f);
  CHECK(status_labels(f) == kLabels);
}

TEST_CASE("env axes: a question about one is answered and the report tells its values apart") {
  for (const bool older : {false, true}) {
    CAPTURE(older);
    ReportFixture f(older ? "env_axes_report_old.sqlite" : "env_axes_report.sqlite");
    thread_campaign(f, "c1");
    if (older) forget_recorded_env(f);
    f.store().record_questions(
        "c1", questions_to_json({{"tokens_per_sec", "env.OMP_NUM_THREADS", "1", {}, "higher", "", {}, ""}}));
    auto db = open_results(f.path());
    const ReportData data = load_report_data(*db, {latest_campaign(*db)});
    REQUIRE(data.trials.size() == 4);
    CHECK(data.trials[1].param("env.OMP_NUM_THREADS") == "2");
    const std::string answers = render_answers_text(data);
    CHECK(contains(answers, "env.OMP_NUM_THREADS = 2 vs 1: 1.50× tokens/s"));
    CHECK_FALSE(contains(answers, "no trial recorded"));
    const std::string md = render_latest(f).markdown;
    CHECK(contains(md, "env.OMP_NUM_THREADS=2"));
    CHECK_FALSE(contains(md, "env.OMP_NUM_THREADS=?"));
  }
}

TEST_CASE("env axes: compare and history keep one configuration per env value") {
  ReportFixture f("env_axes_compare.sqlite");
  thread_campaign(f, "c1");
  thread_campaign(f, "c2");
  forget_recorded_env(f);  // both readers take older rows' values from the spec
  std::string md;
  REQUIRE_NOTHROW(md = render_comparison_of(f, "c1", "c2"));
  CHECK(contains(md, "env.OMP_NUM_THREADS=1"));
  CHECK(contains(md, "env.OMP_NUM_THREADS=2"));
  auto db = open_results(f.path());
  const std::string history =
      render_history(load_report_data(*db, {campaign_by_id(*db, "c1"), campaign_by_id(*db, "c2")}), {}).markdown;
  CHECK(contains(history, "env.OMP_NUM_THREADS=1"));
  CHECK(contains(history, "env.OMP_NUM_THREADS=2"));
}
