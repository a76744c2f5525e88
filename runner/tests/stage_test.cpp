// Stages of a chain as read from a file, stored with their trial, and turned into commands: what
// each stage runs, with {work_dir} and the trial's values filled in, and what it expects.
#include <doctest/doctest.h>

#include "experiment/experiment_loader.h"
#include "experiment/matrix.h"
#include "launch/stage_command.h"
#include "store/trial_json.h"

using namespace mt;

namespace {

Trial first_chain_trial() {
  LoadResult r = load_experiment(std::string(MT_TEST_DATA_DIR) + "/valid_chain.yaml");
  REQUIRE(r.errors.empty());
  Expansion e = expand_experiment(*r.experiment);
  REQUIRE(e.errors.empty());
  REQUIRE(e.trials.size() == 2);
  return e.trials[0];
}

LaunchContext local_context() {
  LaunchContext c;
  c.engine = "/opt/mt/mtengine";
  c.launcher.type = "local";
  return c;
}

}  // namespace

TEST_CASE("a study's stages load in order with their workloads, values and expectations") {
  const Trial t = first_chain_trial();
  CHECK(t.is_chain());
  CHECK(t.stored_workload() == "chain");
  REQUIRE(t.stages.size() == 5);
  CHECK(t.stages[0].name == "straight");
  CHECK(t.stages[0].workload == "train");
  CHECK(t.stages[0].expect.describe() == "succeeded");

  const Stage& killed = t.stages[1];
  CHECK(killed.params.size() == 1);
  CHECK(killed.params[0].name == "seed");
  CHECK(killed.engine_args == std::vector<std::string>{"--fault", "kill:rank=1,step=2"});
  CHECK(killed.timeout_s == 60);
  CHECK(killed.expect.describe() == "crashed");  // `expect: crashed` is the outcome alone

  CHECK(t.stages[2].expect.describe() == "failed, exit 2; output has \"strategy: checkpoint has '{strategy}'\"");

  const Stage& same = t.stages[3];
  CHECK(same.workload == "verify");
  CHECK(same.compare.size() == 2);
  CHECK(same.expect.describe() == "succeeded; exact match; READY steps 2 4; step 6 not READY; latest 4");

  CHECK(t.stages[4].workload == "command");
  CHECK_FALSE(t.stages[4].command_uses_launcher);
}

TEST_CASE("stages are stored with their trial and part of its identity") {
  const Trial t = first_chain_trial();
  const Trial back = trial_from_json(trial_to_json(t));
  REQUIRE(back.stages.size() == t.stages.size());
  for (std::size_t i = 0; i < t.stages.size(); ++i) CHECK(stage_to_json(back.stages[i]) == stage_to_json(t.stages[i]));

  LoadResult r = load_experiment(std::string(MT_TEST_DATA_DIR) + "/valid_chain.yaml");
  REQUIRE(r.experiment);
  r.experiment->studies[0].stages[1].stage.expect.rank = 0;  // the same trial expecting something else
  CHECK(expand_experiment(*r.experiment).trials[0].identity != t.identity);
}

TEST_CASE("each stage's command: the chain's values, the stage's own, {work_dir} and the built-ins filled in") {
  const Trial t = first_chain_trial();
  const ChainDirs dirs{"/runs/x/attempt-2"};
  const LaunchContext context = local_context();

  const StageLaunch killed = prepare_stage(t, 1, dirs, context);
  CHECK(command_line(killed.command) ==
        "OMP_NUM_THREADS=1 /opt/mt/mtengine train --seed 3 --steps 4 --strategy ddp --warmup-steps 0 "
        "--collective-timeout 30 --fault kill:rank=1,step=2 --output /runs/x/attempt-2/2-killed/result.json");
  CHECK(killed.trial.timeout_s == 60);

  const StageLaunch refused = prepare_stage(t, 2, dirs, context);
  CHECK(refused.expect.message_contains == "strategy: checkpoint has 'ddp'");

  const StageLaunch same = prepare_stage(t, 3, dirs, context);
  CHECK(command_line(same.command) ==
        "OMP_NUM_THREADS=1 /opt/mt/mtengine verify /runs/x/attempt-2/work/a/step_00000004 "
        "/runs/x/attempt-2/work/b/step_00000004 --output /runs/x/attempt-2/4-same/result.json");
  CHECK(same.expect.checkpoint_dir == "/runs/x/attempt-2/work/a");

  const StageLaunch listing = prepare_stage(t, 4, dirs, context);
  CHECK(command_line(listing.command) == "ls /runs/x/attempt-2/work");  // direct: no launcher, no ranks

  CHECK(chain_command_text(t, dirs, context).find("stage listing: ") != std::string::npos);
}
