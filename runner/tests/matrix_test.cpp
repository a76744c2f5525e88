#include <doctest/doctest.h>

#include <set>

#include "commands/experiment_plan.h"
#include "experiment/experiment_loader.h"
#include "experiment/matrix.h"
#include "experiment_text.h"

using namespace mt;

namespace {
Experiment valid() {
  LoadResult r = load_experiment(std::string(MT_TEST_DATA_DIR) + "/valid.yaml");
  REQUIRE(r.experiment.has_value());
  return *r.experiment;
}

Experiment from_yaml(const std::string& text) { return testing::experiment_from_text(text); }

// Study `s` with one axis per name, each of `values` values 1..values; a `command` study when
// `command` is set (any parameter names), else `train`.
std::string matrix_yaml(const std::vector<std::string>& axes, int values, int repeat = 1, bool command = false) {
  std::string yaml = "name: m\nrepeat: " + std::to_string(repeat) + "\nstudies:\n  - name: s\n";
  yaml += command ? "    workload: command\n    command: [\"true\"]\n" : "    workload: train\n";
  yaml += "    matrix:\n";
  for (const auto& axis : axes) {
    yaml += "      " + axis + ": [";
    for (int v = 1; v <= values; ++v) yaml += (v > 1 ? ", " : "") + std::to_string(v);
    yaml += "]\n";
  }
  return yaml;
}
}  // namespace

TEST_CASE("expansion is the cross product of the axes, once per repeat") {
  auto trials = expand_experiment(valid()).trials;
  // study ddp: 2 ranks × 2 sync modes × repeat 2 = 8; study single: no axes × repeat 3 = 3
  REQUIRE(trials.size() == 11);
  CHECK(trials[0].study == "ddp");
  CHECK(trials[10].study == "single");
  CHECK(trials[10].ranks == 1);
}

TEST_CASE("repeats are the outer loop across studies and the last axis turns fastest") {
  auto trials = expand_experiment(valid()).trials;
  CHECK(trials[0].axes_label() == "ranks=1 gradient_sync_mode=every");
  CHECK(trials[1].axes_label() == "ranks=1 gradient_sync_mode=last");
  CHECK(trials[2].axes_label() == "ranks=2 gradient_sync_mode=every");
  CHECK(trials[2].ranks == 2);
  CHECK(trials[3].repeat_index == 0);
  CHECK(trials[4].study == "single");  // studies take turns within each repeat
  CHECK(trials[4].repeat_index == 0);
  CHECK(trials[5].repeat_index == 1);
  CHECK(trials[5].axes_label() == trials[0].axes_label());
}

TEST_CASE("defaults reach every trial and parameters are sorted by name") {
  auto trials = expand_experiment(valid()).trials;
  CHECK(trials[0].param("d_model") == "64");
  CHECK(trials[0].params.front().name == "d_model");
  CHECK(trials[0].params.back().name == "ranks");
}

TEST_CASE("identities are distinct per trial, stable, and repeats share a group") {
  auto a = expand_experiment(valid()).trials;
  auto b = expand_experiment(valid()).trials;
  std::set<std::string> ids;
  for (size_t i = 0; i < a.size(); ++i) {
    ids.insert(a[i].identity);
    CHECK(a[i].identity == b[i].identity);
  }
  CHECK(ids.size() == a.size());
  CHECK(a[0].group_key == a[5].group_key);
  CHECK(a[0].group_key != a[1].group_key);
  CHECK(plan_hash(a) == plan_hash(b));
}

TEST_CASE("changing a default changes the identity") {
  Experiment e = valid();
  auto before = expand_experiment(e).trials;
  e.studies[0].defaults[0].value.text = "128";
  auto after = expand_experiment(e).trials;
  CHECK(before[0].identity != after[0].identity);
  CHECK(plan_hash(before) != plan_hash(after));
}

TEST_CASE("zip, exclude, include, derived values, where and env axes") {
  LoadResult r = load_experiment(std::string(MT_TEST_DATA_DIR) + "/valid_language.yaml");
  REQUIRE(r.errors.empty());
  Expansion e = expand_experiment(*r.experiment);
  REQUIRE(e.errors.empty());
  // 2 strategies × 3 ranks × 2 zipped shapes = 12; exclude drops fsdp×1 (2 shapes) = 10;
  // include adds zero1×2 = 11; where keeps global_batch = 2·ranks ≤ 4 (ranks 1, 2) or zero1:
  // ddp 1,2 × 2 shapes = 4, fsdp 2 × 2 shapes = 2, zero1 = 1 → 7.
  CHECK(e.excluded == 2);
  CHECK(e.filtered == 4);
  REQUIRE(e.trials.size() == 7);
  for (const auto& t : e.trials) {
    CAPTURE(t.axes_label());
    CHECK((t.param("d_model") == "64") == (t.param("n_heads") == "2"));  // zipped together
    CHECK_FALSE((t.param("strategy") == "fsdp" && t.ranks == 1));
    REQUIRE(t.derived.size() == 1);
    CHECK(t.derived[0].value == std::to_string(2 * t.ranks));
  }
  const Trial& first = e.trials.front();
  REQUIRE(first.environment.size() == 1);
  CHECK(first.environment[0].name == "NCCL_ALGO");
  CHECK(first.environment[0].value == "Ring");
  CHECK(first.axes_label() == "strategy=ddp ranks=1 env.NCCL_ALGO=Ring d_model=64 n_heads=2");
  CHECK(e.trials.back().param("strategy") == "zero1");
}

TEST_CASE("the trial count is checked before expanding; --max-trials raises the limit") {
  Experiment e = from_yaml(matrix_yaml({"seed", "steps", "batch_size"}, 50, 2));  // 50^3 × 2 = 250,000
  Expansion refused = expand_experiment(e);
  REQUIRE(refused.errors.size() == 1);
  CHECK(refused.errors[0].pos.line == 4);
  CHECK(refused.errors[0].message ==
        "the experiment expands to 250000 trials, more than the limit of 100000; study 's' has 50 × 50 × 50 "
        "combinations × 2 repeats (narrow the matrix, or raise the limit with --max-trials)");
  CHECK(refused.trials.empty());
  Expansion allowed = expand_experiment(e, ExpansionLimits{250000});
  CHECK(allowed.errors.empty());
  CHECK(allowed.trials.size() == 250000);
}

TEST_CASE("a count past 64 bits saturates instead of wrapping around") {
  std::vector<std::string> axes;
  for (char c = 'a'; c <= 't'; ++c) axes.push_back(std::string("p") + c);  // 10^20 combinations
  Expansion e = expand_experiment(from_yaml(matrix_yaml(axes, 10, 1, true)), ExpansionLimits{UINT64_MAX - 1});
  REQUIRE(e.errors.size() == 1);
  CHECK(e.errors[0].message.rfind("the experiment expands to over 18446744073709551615 trials, more than the limit of "
                                  "18446744073709551614;",
                                  0) == 0);
}

TEST_CASE("trials are built on demand from compact records, in the same order as before") {
  // 40 × 50 × 30 = 60,000 combinations × 2 repeats: repeat-major, last axis fastest.
  Experiment e = from_yaml(matrix_yaml({"seed"}, 1));
  e.studies[0].axes.clear();
  auto axis = [](const std::string& name, int n) {
    Axis a{name, {}, {}};
    for (int v = 1; v <= n; ++v) a.values.push_back({std::to_string(v), {}});
    return a;
  };
  e.studies[0].axes = {axis("seed", 40), axis("steps", 50), axis("batch_size", 30)};
  e.studies[0].repeat = 2;
  Expansion x = expand_experiment(e, ExpansionLimits{120000});
  REQUIRE(format_diagnostics(x.errors) == "");
  REQUIRE(x.trials.size() == 120000);
  const std::size_t index = 60000 + 17 * 1500 + 23 * 30 + 4;  // repeat 1, seed 18, steps 24, batch 5
  Trial t = x.trials[index];
  CHECK(t.repeat_index == 1);
  CHECK(t.param("seed") == "18");
  CHECK(t.param("steps") == "24");
  CHECK(t.param("batch_size") == "5");
  CHECK(x.trials.identity(index) == t.identity);
  CHECK(x.trials[index - 60000].group_key == t.group_key);
  CHECK(x.trials.back().param("seed") == "40");
}

TEST_CASE("a renamed experiment is a campaign of its own") {
  LauncherConfig mpirun;
  CHECK(campaign_id_of("a", "plan", "rev", mpirun) != campaign_id_of("b", "plan", "rev", mpirun));
  CHECK(campaign_id_of("a", "plan", "rev", mpirun) == campaign_id_of("a", "plan", "rev", mpirun));
  LauncherConfig slurm;
  slurm.type = "slurm";
  CHECK(campaign_id_of("a", "plan", "rev", mpirun) != campaign_id_of("a", "plan", "rev", slurm));
}
