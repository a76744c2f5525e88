#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "experiment/experiment_loader.h"
#include "run/adaptive_repeats.h"

using namespace mt;

namespace {

std::string load_errors(const std::string& yaml) {
  const auto file = std::filesystem::temp_directory_path() / "mt_adaptive_test.yaml";
  std::ofstream(file) << yaml;
  LoadResult r = load_experiment(file);
  std::string out;
  for (const auto& e : r.errors) out += e.message + "\n";
  return out;
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
        "repeat target_ci_pct must be above 0\n");
  CHECK(load_errors(head + "repeat: 5\n" + study).empty());
}
