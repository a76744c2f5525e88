#include <doctest/doctest.h>

#include "experiment/experiment_loader.h"
#include "experiment/matrix.h"
#include "experiment_text.h"
#include "run/adaptive_repeats.h"
#include "store_fixture.h"

using namespace mt;
using mt::testing::load_errors;

namespace {

Experiment load(const std::string& yaml) {
  LoadResult r = testing::load_experiment_text(yaml);
  REQUIRE(r.experiment);
  return *r.experiment;
}

// A trial of campaign "c" at `ordinal`, its latest attempt ending in `state` (none: never started).
std::int64_t trial_at(Store& store, int ordinal, std::optional<AttemptState> state) {
  Trial t;
  t.study = "s";
  t.workload = "command";
  t.command = {"true"};
  t.repeat_index = ordinal;
  t.identity = "t" + std::to_string(ordinal);
  t.group_key = "g";
  const std::int64_t row = store.add_trial_if_new("c", t, ordinal);
  if (state) {
    const auto attempt = store.begin_attempt(row, 1, "true", "/run", "/run/log.txt", std::nullopt);
    AttemptOutcome outcome;
    outcome.state = *state;
    store.finish_attempt(attempt, outcome, std::nullopt);
  }
  return row;
}

}  // namespace

TEST_CASE("adaptive repeats stop at the target, at max, or wait for failed rounds") {
  RepeatPolicy p{3, 6, 2.0};
  CHECK(p.adaptive());
  CHECK_FALSE((RepeatPolicy{5, 5, std::nullopt}).adaptive());
  auto tight = decide_rounds(p, 3, {100, 100.5, 99.5}, true);
  CHECK(tight.decision == RoundDecision::Reached);
  CHECK(*tight.ci_pct == doctest::Approx(1.242).epsilon(0.01));
  auto noisy = decide_rounds(p, 3, {50, 150, 100}, true);
  CHECK(noisy.decision == RoundDecision::More);
  CHECK(decide_rounds(p, 6, {50, 150, 100, 60, 140, 90}, true).decision == RoundDecision::AtMax);
  CHECK(decide_rounds(p, 3, {50, 150}, false).decision == RoundDecision::Blocked);
  // Disturbed attempts are not among the values: too few to judge means another round.
  auto unjudged = decide_rounds(p, 3, {100}, true);
  CHECK(unjudged.decision == RoundDecision::More);
  CHECK_FALSE(unjudged.ci_pct);
}

TEST_CASE("adaptive repeat keys are validated with the other keys") {
  const std::string head = "name: x\n";
  const std::string study = "studies:\n  - name: s\n    workload: command\n    command: [echo, 1]\n";
  CHECK(load_errors(head + "repeat: {min: 3, max: 2, target_ci_pct: 2}\n" + study) ==
        "repeat max (2) is below min (3)\n");
  CHECK(load_errors(head + "repeat: {min: 3, max: 5}\n" + study) ==
        "repeat needs 'target_ci_pct' (repeat: {min: 3, max: 20, target_ci_pct: 2}, or a number of repeats)\n");
  CHECK(load_errors(head + "repeat: {min: 3, max: 5, target_ci_pct: 0}\n" + study) ==
        "repeat target_ci_pct must be above 0, got 0\n");
  // Below zero is said the same way, and every bad bound at once.
  CHECK(load_errors(head + "repeat: {min: 1, max: 5, target_ci_pct: -3}\n" + study) ==
        "repeat min must be at least 2, got 1\nrepeat target_ci_pct must be above 0, got -3\n");
  CHECK(load_errors(head + "repeat: 5\n" + study).empty());
}

TEST_CASE("the trial limit counts the rounds adaptive repeats may add") {
  const std::string yaml =
      "name: x\nstudies:\n  - name: s\n    workload: command\n    command: [echo, 1]\n"
      "    matrix: {n: [1, 2, 3, 4]}\n    repeat: {min: 2, max: 100000000, target_ci_pct: 1}\n";
  const Experiment e = load(yaml);
  const Expansion plan = expand_experiment(e);
  REQUIRE(plan.errors.size() == 1);
  CHECK(plan.errors[0].message ==
        "the experiment expands to up to 400000000 trials, more than the limit of 100000; study 's' has 4 "
        "combinations × up to 100000000 repeats (narrow the matrix or repeat's max, or raise the limit with "
        "--max-trials)");
  CHECK(expand_experiment(e, ExpansionLimits{400000000}).errors.empty());
}

TEST_CASE("a plan says what its adaptive studies may add, study by study in plan order") {
  const Experiment e = load(R"(name: x
studies:
  - name: fixed
    workload: train
    repeat: 2
    matrix: {ranks: [1, 2]}
  - name: grown
    workload: train
    repeat: {min: 3, max: 7, target_ci_pct: 2.5}
    matrix: {ranks: [1, 2], strategy: [ddp, fsdp]}
    exclude: [{ranks: 1, strategy: fsdp}]
  - name: early
    workload: comm
    repeat: {min: 2, max: 4, target_ci_pct: 5}
)");
  const auto lines = adaptive_plan_lines(adaptive_studies(e), expand_experiment(e).trials);
  REQUIRE(lines.size() == 2);
  // Three configurations (one excluded), four rounds beyond the three planned: 12 more at most.
  CHECK(lines[0] ==
        "grown (3 configurations): after 3 rounds, another round of a configuration while its tokens/s 95 % CI is "
        "wider than ±2.5 % of its mean, up to 7 rounds: at most 12 more trials");
  CHECK(lines[1].find("early (1 configuration): after 2 rounds") == 0);
  CHECK(lines[1].find("busbw") != std::string::npos);
  CHECK(lines[1].find("at most 2 more trials") != std::string::npos);
  CHECK(adaptive_plan_lines(adaptive_studies(load("name: y\nrepeat: 3\nstudies:\n  - {name: s, workload: train}\n")),
                            expand_experiment(e).trials)
            .empty());
}

TEST_CASE("what adaptive repeats came to: who reached the target, who stopped at max, who is not finished") {
  auto config = [](const std::string& label, RoundDecision decision, int rounds, int counted,
                   std::optional<double> ci) {
    ConfigurationRounds c;
    c.label = label;
    c.status = {decision, rounds, counted, ci};
    return c;
  };
  const std::vector<ConfigurationRounds> all = {
      config("a", RoundDecision::Reached, 5, 5, 1.64), config("b", RoundDecision::AtMax, 8, 8, 3.71),
      config("c", RoundDecision::AtMax, 8, 0, std::nullopt), config("d", RoundDecision::Blocked, 4, 1, std::nullopt),
      config("e", RoundDecision::AtMax, 8, 1, std::nullopt)};
  CHECK(
      adaptive_outcome(all, "`") ==
      "reached the target: `a` (5 rounds, ±1.6 %); stopped at max: `b` (8 rounds, ±3.7 %), `c` (8 rounds, no quiet "
      "attempt), `e` (8 rounds, one quiet attempt: no interval); held back by a round that has not succeeded: failed, "
      "interrupted or not run yet (run the experiment again: it runs that round first): `d` (4 rounds, one quiet "
      "attempt: no interval)");
  CHECK(adaptive_outcome({config("f", RoundDecision::More, 3, 3, 9.5)}, "") ==
        "not finished (run the experiment again): f (3 rounds, ±9.5 %)");
  CHECK(adaptive_outcome({all[1]}, "") == "stopped at max: b (8 rounds, ±3.7 %)");
  CHECK(adaptive_outcome({}, "").empty());
}

// A runner stopped in an added round leaves it with an interrupted trial and one never started; the
// plan alone does not list them, so without this a run of the file again would run nothing and the
// campaign would stay short of its rounds. --force takes every added round, succeeded ones too, so
// that no older attempt is left among the new ones in a mean.
TEST_CASE("a run again runs the added rounds that have not succeeded, --force every one") {
  TempStore temp("mtrun_adaptive_rounds_test", 2);
  Store& store = temp.store;
  trial_at(store, 0, AttemptState::Succeeded);  // the plan's two rounds
  trial_at(store, 1, AttemptState::Succeeded);
  const auto done = trial_at(store, 2, AttemptState::Succeeded);  // rounds added by an earlier run
  const auto stopped = trial_at(store, 3, AttemptState::Interrupted);
  const auto waiting = trial_at(store, 4, std::nullopt);

  const std::map<std::string, RepeatPolicy> adaptive = {{"s", RepeatPolicy{2, 8, 1.0}}};
  const AddedRounds again = added_rounds_to_run(store.db(), "c", 2, false, adaptive);
  CHECK(again.added == 3);
  CHECK(again.to_run == std::vector<std::int64_t>{stopped, waiting});
  const AddedRounds forced = added_rounds_to_run(store.db(), "c", 2, true, adaptive);
  CHECK(forced.added == 3);
  CHECK(forced.to_run == std::vector<std::int64_t>{done, stopped, waiting});
  // A campaign of the plan's trials alone has none.
  CHECK(added_rounds_to_run(store.db(), "c", 5, true, adaptive).added == 0);
  // The experiment's rules now decide: a max lowered to 4 leaves the round at index 4 alone, and a
  // study no longer adaptive runs none of its added rounds.
  CHECK(added_rounds_to_run(store.db(), "c", 2, false, {{"s", RepeatPolicy{2, 4, 1.0}}}).to_run ==
        std::vector<std::int64_t>{stopped});
  CHECK(added_rounds_to_run(store.db(), "c", 2, true, {}).to_run.empty());
}
