// A chain through the campaign loop with real processes and a real store: one attempt, a stage row
// per launch, the verdict naming the first stage that did not do what it expected, nothing run
// after it; a re-run (as `rerun --failed` does it, from the stored trial) starts again from the
// first stage in a fresh work directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run/campaign_runner.h"
#include "store_fixture.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

Stage command_stage(const std::string& name, std::vector<std::string> argv, StageExpectation expect = {}) {
  Stage s;
  s.name = name;
  s.workload = kCommandStage;
  s.command = std::move(argv);
  s.command_uses_launcher = false;
  s.expect = std::move(expect);
  return s;
}

// Four stages: the first finds its work directory empty, the second fails as it expects to, the
// third passes only once `gate` exists, the fourth just succeeds.
Trial chain_trial(const fs::path& gate) {
  Trial t;
  t.study = "chain";
  t.workload = "train";
  t.timeout_s = 30;
  t.identity = t.group_key = "chain0000000";
  t.stages.push_back(
      command_stage("fresh", {"sh", "-c", "test -z \"$(ls -A \"$1\")\" && touch \"$1/one\"", "sh", "{work_dir}"}));
  StageExpectation refused;
  refused.outcome = "failed";
  refused.exit_code = 2;
  refused.message_contains = "cannot resume";
  t.stages.push_back(command_stage("refused", {"sh", "-c", "echo 'cannot resume: no' >&2; exit 2"}, refused));
  t.stages.push_back(command_stage("gate", {"test", "-f", gate.string()}));
  t.stages.push_back(command_stage("last", {"test", "-f", "{work_dir}/one"}));
  return t;
}

}  // namespace

TEST_CASE("a chain is one attempt of one trial; it fails at its first unmet stage and reruns from the first") {
  TempStore temp("mtrun_chain_test", 1);
  Store& store = temp.store;
  const fs::path& dir = temp.dir;
  const fs::path gate = dir / "gate";
  const std::int64_t row = store.add_trial_if_new("c", chain_trial(gate), 0);
  CampaignRun run;
  run.campaign_id = "c";
  run.runs_dir = dir / "runs";
  PendingTrials pending;
  pending.rows = {row};
  pending.trial = [&](std::size_t) { return store.trial_spec(row); };  // as rerun rebuilds it
  std::ostringstream out;

  CampaignResult first = run_trials(store, run, pending, out);
  CHECK(first.failed == 1);
  CHECK(temp.query("SELECT workload FROM trials") == "chain");
  CHECK(temp.query("SELECT state || ': ' || error_reason FROM attempts") ==
        "failed: stage 3 'gate': expected succeeded, observed failed, exit 1");
  CHECK(temp.query("SELECT position || ' ' || name || ' ' || state || ' ' || met FROM stages ORDER BY position") ==
        "1 fresh succeeded 1,2 refused failed 1,3 gate failed 0");  // stage 4 never ran
  CHECK(temp.query("SELECT observed FROM stages WHERE position = 2") == "failed, exit 2; output has \"cannot resume\"");
  CHECK(fs::exists(dir / "runs" / "chain0000000" / "attempt-1" / "work" / "one"));
  CHECK(fs::exists(dir / "runs" / "chain0000000" / "attempt-1" / "3-gate" / "log.txt"));

  std::ofstream(gate) << "";
  CampaignResult second = run_trials(store, run, pending, out);
  CHECK(second.failed == 0);
  CHECK(temp.query("SELECT attempt || ' ' || state FROM attempts ORDER BY attempt") == "1 failed,2 succeeded");
  // Stage 1 found the new work directory empty: the chain started over, not from its failed stage.
  CHECK(
      temp.query("SELECT a.attempt || ':' || s.position || s.met FROM stages s JOIN attempts a ON a.id = s.attempt_id "
                 "ORDER BY a.attempt, s.position") == "1:11,1:21,1:30,2:11,2:21,2:31,2:41");
  CHECK(temp.query("SELECT group_concat(stage, ' ') FROM chain_stages") == "fresh refused gate last");
  CHECK(temp.query("SELECT DISTINCT verdict FROM chain_stages") == "succeeded");
}
